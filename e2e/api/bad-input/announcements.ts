import type { Table } from "../support/bad-input";

function listAnnouncementsTable(): Table {
  return {
    setup: async () => ({ credentials: {}, values: {}, verify: async () => {} }),
    cases: [
      ["an unknown order_by", () => ({ query: "order_by=sideways" }), ["order_by"]],
      ["an upper-case order_by", () => ({ query: "order_by=DESC" }), ["order_by"]],
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["page=-1", () => ({ query: "page=-1" }), ["page"]],
      ["per_page=0", () => ({ query: "per_page=0" }), ["per_page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["per_page=ten", () => ({ query: "per_page=ten" }), ["per_page"]],
    ],
  };
}

function listAnnouncementEntriesTable(): Table {
  return {
    setup: async () => ({ credentials: {}, values: {}, verify: async () => {} }),
    cases: [
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["per_page=ten", () => ({ query: "per_page=ten" }), ["per_page"]],
    ],
  };
}

export const tables: Record<string, () => Table> = {
  listAnnouncements: listAnnouncementsTable,
  listAnnouncementEntries: listAnnouncementEntriesTable,
};
