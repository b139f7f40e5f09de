/** How far back completed tunnels count towards the rate at which the server completes them. */
const rateWindowMs = 5_000;
/** The longest wait asked for: a fleet larger than a minute's worth is asked again when it comes back. */
const maxWaitMs = 60_000;

/**
 * Admission of tunnel upgrades under load (a fleet reconnecting after a restart): at most
 * `maxInProgress` tunnels between their upgrade and their registration (the device looked up,
 * the SSH handshake, the forwarding), with the ownership writes still queued counted alongside.
 * One more is asked to come back later (429, Retry-After) instead of being taken on and timing
 * out: each refused agent gets the next free slot of a queue served at the rate tunnels have
 * been completing, so the refused ones come back spread out, not together.
 */
export class TunnelAdmission {
  private readonly inProgress = new Set<object>();
  private readonly completedAt: number[] = [];
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
    if (this.inProgress.size + queuedWrites < this.maxInProgress) {
      this.inProgress.add(tunnel);
      return undefined;
    }
    const now = this.now();
    const slot = Math.min(Math.max(now, this.lastSlotMs) + 1000 / this.completionsPerSecond(now), now + maxWaitMs);
    this.lastSlotMs = slot;
    return { retryAfterSeconds: Math.max(1, Math.ceil((slot - now) / 1000)) };
  }

  /** `tunnel` is registered (`completed`) or gone; a second call changes nothing. */
  leave(tunnel: object, completed: boolean) {
    if (!this.inProgress.delete(tunnel) || !completed) return;
    this.completedAt.push(this.now());
  }

  /**
   * Tunnels completed per second over the last few seconds; before any, as many as may be in
   * progress (a guess that the first ones take about a second).
   */
  private completionsPerSecond(now: number): number {
    while (this.completedAt.length > 0 && (this.completedAt[0] ?? 0) < now - rateWindowMs) this.completedAt.shift();
    const oldest = this.completedAt[0];
    if (oldest === undefined) return this.maxInProgress;
    const seconds = Math.max(1, (now - oldest) / 1000);
    return Math.max(1, this.completedAt.length / seconds);
  }
}
