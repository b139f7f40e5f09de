import type { Operation } from "../http/operation";

export const announcementOperations: Operation[] = [];
