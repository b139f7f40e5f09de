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
 * The longest an upgrade waits in line, held open, for a place: then it is answered 429 after
 * all, inside the agent's 20 s limit for the upgrade's answer. A held upgrade starts the moment
 * a place frees, where a refused one comes back at a time guessed in advance: the line keeps
 * the server busy through a storm. The line is bounded by this time alone: bounded by 10 s of
 * set-ups at the estimated rate, it refused hundreds in a storm's first seconds, while the
 * estimate is low because the process is cold, and asked them to wait up to 26 s
 * (docs/performance.md).
 */
const maxHoldMs = 15_000;
/** How often the line is looked at: places free as queued writes finish, and the longest held are let go. */
const lineCheckMs = 100;

type Refusal = { retryAfterSeconds: number };
type Held = { device: string; since: number; answer: (refusal: Refusal | undefined) => void };

/**
 * Admission of tunnel upgrades under load (a fleet reconnecting after a restart): at most
 * `maxInProgress` tunnels between their upgrade and their registration (the device looked up,
 * the SSH handshake, the forwarding), with the ownership writes still queued (`queuedWrites`)
 * counted alongside. One more waits in line, its upgrade held open, for the next free place, for
 * at most `maxHoldMs`. Then it is asked to come back later (429, Retry-After) instead of being
 * taken on and timing out: each refused agent gets the next free slot of a schedule served,
 * after the line, at the rate the server sets tunnels up, so the refused ones come back spread
 * out, not together. A device has one upgrade in line at most: the line is never longer than
 * the fleet, however many connections one device's token opens.
 */
export class TunnelAdmission {
  /** Each tunnel in progress, and when it entered. */
  private readonly inProgress = new Map<object, number>();
  /** In order of arrival, by tunnel: the head is the first let in, any tunnel leaves at once. */
  private readonly line = new Map<object, Held>();
  /** The devices with an upgrade in line. */
  private readonly devicesInLine = new Set<string>();
  private readonly durationsMs: number[] = [];
  private lastSlotMs = 0;
  private lineTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly maxInProgress: number,
    private readonly queuedWrites: () => number = () => 0,
    private readonly now: () => number = Date.now,
  ) {}

  /** Tunnels in progress. */
  get size(): number {
    return this.inProgress.size;
  }

  /** Upgrades waiting in line. */
  get waiting(): number {
    return this.line.size;
  }

  /**
   * Counts `tunnel`, an upgrade of `device`, in: at once when there is a place, else after its
   * wait in line. Answers the seconds it should wait when it waited in line the longest wait, or
   * at once when the device already has an upgrade in line. A tunnel that leaves while in line
   * (its connection closed) is answered at once and never counted in.
   */
  enter(tunnel: object, device: string): Promise<Refusal | undefined> {
    const now = this.now();
    if (this.line.size === 0 && this.hasPlace()) {
      this.inProgress.set(tunnel, now);
      return Promise.resolve(undefined);
    }
    if (this.devicesInLine.has(device)) return Promise.resolve(this.refuser(now)());
    return new Promise((answer) => {
      this.line.set(tunnel, { device, since: now, answer });
      this.devicesInLine.add(device);
      this.lineTimer ??= setInterval(() => this.admitFromLine(), lineCheckMs).unref();
      // A place may have freed since the timer last looked (a queued write finished).
      this.admitFromLine();
    });
  }

  /** `tunnel` is registered (`completed`) or gone; a second call changes nothing. */
  leave(tunnel: object, completed: boolean) {
    const enteredAt = this.inProgress.get(tunnel);
    if (enteredAt === undefined) {
      // Not in progress: perhaps in line (a tunnel is never both).
      this.takeFromLine(tunnel)?.answer(undefined);
    } else {
      this.inProgress.delete(tunnel);
      if (completed) {
        this.durationsMs.push(this.now() - enteredAt);
        if (this.durationsMs.length > durationsKept) this.durationsMs.shift();
      }
    }
    this.admitFromLine();
  }

  private takeFromLine(tunnel: object): Held | undefined {
    const held = this.line.get(tunnel);
    if (held) {
      this.line.delete(tunnel);
      this.devicesInLine.delete(held.device);
    }
    return held;
  }

  private hasPlace(): boolean {
    return this.inProgress.size + this.queuedWrites() < this.maxInProgress;
  }

  /**
   * The first in line take the places free now (a place also frees when queued writes finish,
   * hence the timer); those held the longest wait are asked to come back instead.
   */
  private admitFromLine() {
    for (const tunnel of this.line.keys()) {
      if (!this.hasPlace()) break;
      const held = this.takeFromLine(tunnel);
      this.inProgress.set(tunnel, this.now());
      held?.answer(undefined);
    }
    // The line is in order of arrival: those held the longest wait are at its head. Each is given
    // a slot after those of the line a place will reach in time.
    const now = this.now();
    const letGo: Held[] = [];
    for (const [tunnel, held] of this.line) {
      if (now - held.since < maxHoldMs) break;
      letGo.push(held);
      this.takeFromLine(tunnel);
    }
    if (letGo.length > 0) {
      const refuse = this.refuser(now);
      for (const held of letGo) held.answer(refuse());
    }
    if (this.line.size === 0 && this.lineTimer) {
      clearInterval(this.lineTimer);
      this.lineTimer = undefined;
    }
  }

  /**
   * How many of those in line a place will reach, at the server's rate, before they have been
   * held `maxHoldMs`: the rest will be let go too, so they are not ahead of those let go now.
   * Counted as all of the line, the schedule kept the refused half of a fleet away for 20 s
   * while the server went idle halfway (docs/performance.md).
   */
  private servedFromLine(now: number, msEach: number): number {
    let served = 0;
    for (const held of this.line.values()) {
      if (now + (served + 1) * msEach < held.since + maxHoldMs) served += 1;
    }
    return served;
  }

  /** Gives the upgrades let go now their slots, in order, after those of the line a place will reach in time. */
  private refuser(now: number): () => Refusal {
    const msEach = 1000 / this.setUpsPerSecond();
    const ahead = this.servedFromLine(now, msEach);
    return () => this.refusal(now, ahead, msEach);
  }

  /** The next free slot of the schedule after the `ahead` that the line will serve, at most `maxWaitMs` ahead. */
  private refusal(now: number, ahead: number, msEach: number): Refusal {
    const slot = Math.min(Math.max(now + ahead * msEach, this.lastSlotMs) + msEach, now + maxWaitMs);
    this.lastSlotMs = slot;
    return { retryAfterSeconds: Math.max(1, Math.ceil((slot - now) / 1000)) };
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
