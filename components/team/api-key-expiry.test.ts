import { describe, expect, it } from "vitest";
import { byExpiry, expiryOf } from "./api-key-expiry";

const now = Date.UTC(2026, 0, 10, 12);
const inDays = (days: number) => Math.floor(now / 1000) + days * 86_400;

describe("expiryOf", () => {
  it("says never for -1", () => {
    expect(expiryOf(-1, now)).toEqual({ kind: "never" });
  });

  it("says expired at and after the expiry", () => {
    expect(expiryOf(Math.floor(now / 1000), now).kind).toBe("expired");
    expect(expiryOf(inDays(-3), now).kind).toBe("expired");
  });

  it("warns within 7 days, in whole days, never 0 before the end", () => {
    expect(expiryOf(inDays(0.1), now)).toMatchObject({ kind: "soon", daysLeft: 1 });
    expect(expiryOf(inDays(7), now)).toMatchObject({ kind: "soon", daysLeft: 7 });
    expect(expiryOf(inDays(7.6), now)).toMatchObject({ kind: "later", daysLeft: 8 });
    // A key made 30 days ago, seen by a clock a few seconds behind.
    expect(expiryOf(inDays(30) + 20, now)).toMatchObject({ kind: "later", daysLeft: 30 });
  });
});

describe("byExpiry", () => {
  it("puts the soonest first and keys that never expire last", () => {
    const keys = [
      { name: "forever", expires_in: -1 },
      { name: "late", expires_in: inDays(90) },
      { name: "gone", expires_in: inDays(-1) },
      { name: "soon", expires_in: inDays(2) },
    ];
    expect(keys.sort(byExpiry).map((key) => key.name)).toEqual(["gone", "soon", "late", "forever"]);
  });
});
