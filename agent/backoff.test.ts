import { describe, expect, it } from "vitest";
import { Backoff } from "./backoff";

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
