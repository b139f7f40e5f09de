import { afterEach, describe, expect, it, vi } from "vitest";
import { every } from "./timers";

afterEach(() => {
  vi.useRealTimers();
});

describe("every", () => {
  it("skips a run while the last one is still going, and runs again once it ended", async () => {
    vi.useFakeTimers();
    let runs = 0;
    let finish = () => {};
    const timer = every(5, "a slow task", () => {
      runs += 1;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(runs).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(2);
    clearInterval(timer);
  });

  it("runs again after a run that failed", async () => {
    vi.useFakeTimers();
    let runs = 0;
    const timer = every(1, "a failing task", async () => {
      runs += 1;
      throw new Error("no luck");
    });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toBe(3);
    clearInterval(timer);
  });
});
