import type { Operation } from "../http/operation";

export const firewallOperations: Operation[] = [];
