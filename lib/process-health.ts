import { readdirSync } from "node:fs";
import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";
import { log } from "./log";

export type ProcessHealth = {
  rssMiB: number;
  heapUsedMiB: number;
  /** Open file descriptors (sockets included); -1 where /proc is missing. */
  openFds: number;
  /** How late timers ran, over the period: a busy or blocked event loop delays every request. */
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
};

function openFdCount(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return -1;
  }
}

const mib = (bytes: number) => Math.round((bytes / 1024 ** 2) * 10) / 10;
const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100;

/** The process's figures now, with the event-loop delays `histogram` saw since its last reset. */
export function processHealth(histogram: IntervalHistogram): ProcessHealth {
  const memory = process.memoryUsage();
  return {
    rssMiB: mib(memory.rss),
    heapUsedMiB: mib(memory.heapUsed),
    openFds: openFdCount(),
    loopDelayP50Ms: ms(histogram.percentile(50)),
    loopDelayP99Ms: ms(histogram.percentile(99)),
    loopDelayMaxMs: ms(histogram.max),
  };
}

/** Logs the process's figures every `seconds` (info level, message "process health"). */
export function startHealthReport(seconds: number): NodeJS.Timeout {
  // Sampled every 10 ms: finer sampling costs more than the delays it would find.
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const timer = setInterval(() => {
    log.info("process health", processHealth(histogram));
    histogram.reset();
  }, seconds * 1000);
  timer.unref();
  return timer;
}
