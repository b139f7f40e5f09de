import { readdirSync, readFileSync } from "node:fs";
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

/**
 * Connections the system may hold for a listening port before the server accepts them (capped by
 * the kernel's net.core.somaxconn, 4,096 by default). Node's default of 511 overflowed when a fleet
 * reconnected at once: the kernel then drops the connections it has no room for, and the agents'
 * upgrades stall or are reset instead of being answered, 429 included (docs/scaling.md).
 */
export const listenBacklog = 4096;

/** Below this many descriptors the process is told about at start: each device's tunnel holds one. */
const descriptorsWanted = 65_536;

/** The process's limit of open descriptors (RLIMIT_NOFILE, soft); undefined where /proc is missing. */
export function descriptorLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((row) => row.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === "unlimited" ? Number.POSITIVE_INFINITY : Number(soft) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Logs the descriptor limit at start. Node raises its soft limit to the hard one by itself, so
 * a low figure here is the hard limit: only the service manager or the shell can raise it
 * (docs/scaling.md).
 */
export function reportDescriptorLimit() {
  const limit = descriptorLimit();
  if (limit === undefined) return;
  if (limit >= descriptorsWanted) log.info("descriptor limit", { limit });
  else
    log.warn("the descriptor limit caps the devices connected at once: each tunnel holds one (docs/scaling.md)", {
      limit,
      raiseTo: descriptorsWanted,
      how: "systemd LimitNOFILE=, docker --ulimit nofile=, or ulimit -n",
    });
}
