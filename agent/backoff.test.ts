import { describe, expect, it } from "vitest";
import { Backoff, retryAfterDelay } from "./backoff";

describe("back-off", () => {
  it("doubles from 1 s up to 60 s and starts over after a reset", () => {
    const backoff = new Backoff(1_000, 60_000, 0.25, () => 0.5);
    const delays = Array.from({ length: 9 }, () => backoff.next());
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    backoff.reset();
    expect(backoff.next()).toBe(1_000);
  });

  it("moves each delay by at most 25% either way", () => {
    expect(new Backoff(1_000, 60_000, 0.25, () => 0).next()).toBe(750);
    expect(new Backoff(1_000, 60_000, 0.25, () => 0.999999).next()).toBe(1_250);
    const backoff = new Backoff();
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const delay = backoff.next();
      expect(delay).toBeGreaterThanOrEqual(750);
      expect(delay).toBeLessThanOrEqual(75_000);
    }
  });
});

describe("Retry-After", () => {
  it("waits the seconds asked for, lengthened by up to a second and a tenth at random", () => {
    expect(retryAfterDelay("10", () => 0)).toBe(10_000);
    expect(retryAfterDelay("10", () => 0.5)).toBe(11_000);
    expect(retryAfterDelay(" 40 ", () => 0.999999)).toBe(45_000);
    expect(retryAfterDelay("0", () => 0.5)).toBe(500);
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const delay = retryAfterDelay("3") ?? 0;
      expect(delay).toBeGreaterThanOrEqual(3_000);
      expect(delay).toBeLessThanOrEqual(4_300);
    }
  });

  it("reads an HTTP date as the time to wait until", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterDelay("Thu, 01 Jan 2026 00:00:30 GMT", () => 0, now)).toBe(30_000);
    expect(retryAfterDelay("Wed, 31 Dec 2025 23:59:00 GMT", () => 0, now)).toBe(0);
  });

  it("is undefined without a readable header", () => {
    expect(retryAfterDelay(undefined)).toBeUndefined();
    expect(retryAfterDelay("")).toBeUndefined();
    expect(retryAfterDelay("soon")).toBeUndefined();
    expect(retryAfterDelay("-5")).toBeUndefined();
  });
});
