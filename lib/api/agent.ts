import type { Operation } from "../http/operation";

export const agentOperations: Operation[] = [];
