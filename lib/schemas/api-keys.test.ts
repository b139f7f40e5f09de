import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { looksRandom } from "./api-keys";

/** The n-th of a fixed series of uuid v4s, as a generator makes them (SHA-256 as the random source). */
function seriesUuid(n: number): string {
  const bytes = createHash("sha256").update(`uuid ${n}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe("looksRandom", () => {
  it("accepts random uuids", () => {
    const refused = Array.from({ length: 20_000 }, (_, n) => seriesUuid(n)).filter((key) => !looksRandom(key));
    expect(refused).toEqual([]);
  });

  it.each([
    "00000000-0000-4000-8000-000000000000",
    "ffffffff-ffff-4fff-bfff-ffffffffffff",
    "01234567-89ab-4cde-8f01-23456789abcd",
    "fedcba98-7654-4321-8fed-cba987654321",
    "deadbeef-dead-4eef-8ead-beefdeadbeef",
    "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
    "12341234-1234-4123-8123-412341234123",
    "13579bdf-1357-49bd-8135-79bdf13579bd",
  ])("refuses %s", (key) => {
    expect(looksRandom(key)).toBe(false);
  });
});
