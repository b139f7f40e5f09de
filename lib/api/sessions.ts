import type { Operation } from "../http/operation";

export const sessionOperations: Operation[] = [];
