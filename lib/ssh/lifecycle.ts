import { log } from "../log";

/**
 * The phases of a long-lived connection (tunnel, gateway connection, browser terminal):
 * connecting (handshake, authentication) -> connected -> draining (closing, in-flight channels
 * finish) -> closed. A connection that fails before it is connected drains too.
 */
export type Phase = "connecting" | "connected" | "draining" | "closed";

const next: Record<Phase, readonly Phase[]> = {
  connecting: ["connected", "draining"],
  connected: ["draining"],
  draining: ["closed"],
  closed: [],
};

export type Clock = { now: () => number };
export const systemClock: Clock = { now: () => Date.now() };

export class Lifecycle {
  private current: Phase = "connecting";
  private readonly since: number;

  constructor(
    private readonly what: string,
    private readonly fields: Record<string, unknown>,
    private readonly clock: Clock = systemClock,
  ) {
    this.since = clock.now();
  }

  get phase(): Phase {
    return this.current;
  }

  /** Moves to `phase` when the machine allows it from the current one; false (and no change) otherwise. */
  to(phase: Phase, reason?: string): boolean {
    if (!next[this.current].includes(phase)) return false;
    this.current = phase;
    log.debug(`${this.what} ${phase}`, { ...this.fields, reason, after_ms: this.clock.now() - this.since });
    return true;
  }

  is(phase: Phase): boolean {
    return this.current === phase;
  }
}
