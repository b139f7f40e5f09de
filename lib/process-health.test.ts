import { execFileSync } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { descriptorLimit, processHealth } from "./process-health";

describe("processHealth", () => {
  it("reports memory, open descriptors and a blocked event loop's delay", async () => {
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const until = Date.now() + 120;
    while (Date.now() < until) {
      // Blocks the event loop, as a long synchronous task does.
    }
    await new Promise((resolve) => setTimeout(resolve, 30));
    histogram.disable();
    const health = processHealth(histogram);
    expect(health.loopDelayMaxMs).toBeGreaterThanOrEqual(100);
    expect(health.loopDelayP50Ms).toBeLessThan(health.loopDelayMaxMs);
    expect(health.rssMiB).toBeGreaterThan(health.heapUsedMiB);
    expect(health.heapUsedMiB).toBeGreaterThan(1);
    expect(health.openFds).toBeGreaterThan(2);
  });
});

describe("descriptorLimit", () => {
  it("is the soft limit a child process inherits", () => {
    const inherited = execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim();
    expect(String(descriptorLimit())).toBe(inherited === "unlimited" ? "Infinity" : inherited);
  });
});
