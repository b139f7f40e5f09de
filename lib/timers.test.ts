import { afterEach, describe, expect, it, vi } from "vitest";
import { every, unlessBusy } from "./timers";

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

describe("unlessBusy", () => {
  it("puts the task off while busy, at most the longest wait from the first time, and starts counting again after a run", async () => {
    let clock = 0;
    let isBusy = true;
    let runs = 0;
    const tick = unlessBusy(
      () => isBusy,
      60,
      async () => {
        runs += 1;
      },
      () => clock,
    );
    const at = async (seconds: number) => {
      clock = seconds * 1000;
      await tick();
      return runs;
    };
    expect(await at(0)).toBe(0);
    expect(await at(59)).toBe(0);
    expect(await at(60)).toBe(1);
    expect(await at(65)).toBe(1);
    isBusy = false;
    expect(await at(70)).toBe(2);
    isBusy = true;
    expect(await at(75)).toBe(2);
    expect(await at(134)).toBe(2);
    expect(await at(135)).toBe(3);
  });
});
