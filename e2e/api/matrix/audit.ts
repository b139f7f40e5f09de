import type { Entry } from "../support/matrix";

export const requests: Record<string, Entry> = {
  listAudit: { request: () => ({ query: "page=1&per_page=5" }) },
  exportAudit: { request: () => ({ query: "action=device." }) },
};
