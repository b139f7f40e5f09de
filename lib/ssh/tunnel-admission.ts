/** How many of the latest set-ups' durations the estimate of the server's rate averages. */
const durationsKept = 64;
/**
 * The longest wait asked for: a fleet larger than a minute's worth is asked again when it comes
 * back, with the rate the server has reached by then. The rate read just after a restart is low
 * (the process is cold and refuses most of the fleet at once): longer waits, given at that rate,
 * kept a 10,000-device fleet away from a server that had become several times faster
 * (docs/performance.md).
 */
const maxWaitMs = 60_000;

/**
 * Admission of tunnel upgrades under load (a fleet reconnecting after a restart): at most
 * `maxInProgress` tunnels between their upgrade and their registration (the device looked up,
 * the SSH handshake, the forwarding), with the ownership writes still queued counted alongside.
 * One more is asked to come back later (429, Retry-After) instead of being taken on and timing
 * out: each refused agent gets the next free slot of a queue served at the rate the server sets
 * tunnels up, so the refused ones come back spread out, not together.
 */
export class TunnelAdmission {
  /** Each tunnel in progress, and when it entered. */
  private readonly inProgress = new Map<object, number>();
  private readonly durationsMs: number[] = [];
  private lastSlotMs = 0;

  constructor(
    private readonly maxInProgress: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.inProgress.size;
  }

  /**
   * Counts `tunnel` in, or answers the seconds it should wait when `queuedWrites` plus those in
   * progress reach the limit.
   */
  enter(tunnel: object, queuedWrites = 0): { retryAfterSeconds: number } | undefined {
    const now = this.now();
    if (this.inProgress.size + queuedWrites < this.maxInProgress) {
      this.inProgress.set(tunnel, now);
      return undefined;
    }
    const slot = Math.min(Math.max(now, this.lastSlotMs) + 1000 / this.setUpsPerSecond(), now + maxWaitMs);
    this.lastSlotMs = slot;
    return { retryAfterSeconds: Math.max(1, Math.ceil((slot - now) / 1000)) };
  }

  /** `tunnel` is registered (`completed`) or gone; a second call changes nothing. */
  leave(tunnel: object, completed: boolean) {
    const enteredAt = this.inProgress.get(tunnel);
    if (enteredAt === undefined) return;
    this.inProgress.delete(tunnel);
    if (!completed) return;
    this.durationsMs.push(this.now() - enteredAt);
    if (this.durationsMs.length > durationsKept) this.durationsMs.shift();
  }

  /**
   * The server's rate when full (the only time it refuses): as many set-ups as may be in
   * progress, over the time the latest ones took (Little's law). Unlike the count of recent
   * completions, it is right from the first few, while the count is still low just after a
   * restart: read that way, it gave the first refused agents slots so far apart that the rest of
   * a fleet was asked to wait the longest wait and came back together. Before any completion, a
   * guess: a second each.
   */
  private setUpsPerSecond(): number {
    if (this.durationsMs.length === 0) return this.maxInProgress;
    const meanMs = this.durationsMs.reduce((sum, ms) => sum + ms, 0) / this.durationsMs.length;
    return (this.maxInProgress * 1000) / Math.max(1, meanMs);
  }
}
