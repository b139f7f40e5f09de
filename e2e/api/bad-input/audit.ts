import { type Case, readTable, type Table } from "../support/bad-input";

const filterCases: Case[] = [
  ["an unknown outcome", () => ({ query: "outcome=denied" }), ["outcome"]],
  ["a date without a time", () => ({ query: "from=2026-01-31" }), ["from"]],
  ["a time without an offset", () => ({ query: "to=2026-01-31T12:00:00" }), ["to"]],
  ["an action with a space", () => ({ query: "action=device%20accept" }), ["action"]],
  ["an upper-case action", () => ({ query: "action=Device.accept" }), ["action"]],
  ["an actor of 257 characters", () => ({ query: `actor=${"a".repeat(257)}` }), ["actor"]],
];

export const tables: Record<string, () => Table> = {
  listAudit: readTable([
    ["page=0", () => ({ query: "page=0" }), ["page"]],
    ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
    ...filterCases,
  ]),
  exportAudit: readTable(filterCases),
};
