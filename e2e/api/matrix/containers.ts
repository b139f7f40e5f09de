import type { Entry } from "../support/matrix";

/** Valid requests for the container operations (see e2e/api/role-matrix.test.ts). */
export const requests: Record<string, Entry> = {
  listContainers: { request: () => ({ query: "page=1&per_page=5&status=accepted" }) },
};
