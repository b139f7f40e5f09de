import type { Operation } from "../http/operation";

export const deviceOperations: Operation[] = [];
