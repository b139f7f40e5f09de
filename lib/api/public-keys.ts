import type { Operation } from "../http/operation";

export const publicKeyOperations: Operation[] = [];
