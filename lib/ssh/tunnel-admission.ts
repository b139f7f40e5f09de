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
 * How long a line of upgrades held open may take to clear at the server's rate, and the longest
 * an upgrade is held. A held upgrade starts the moment a place frees, where a refused one comes
 * back at a time guessed in advance: the line keeps the server busy through a storm. One held
 * this long is answered 429 after all (the server went slower than its estimate), well inside
 * the agent's 20 s limit for the upgrade's answer.
 */
const maxLineMs = 10_000;
/** How often the line is looked at: places free as queued writes finish, and the longest held are let go. */
const lineCheckMs = 100;

type Refusal = { retryAfterSeconds: number };
type Held = { tunnel: object; since: number; answer: (refusal: Refusal | undefined) => void };

/**
 * Admission of tunnel upgrades under load (a fleet reconnecting after a restart): at most
 * `maxInProgress` tunnels between their upgrade and their registration (the device looked up,
 * the SSH handshake, the forwarding), with the ownership writes still queued (`queuedWrites`)
 * counted alongside. One more waits in line, its upgrade held open, for the next free place, as
 * long as the line clears within `maxLineMs` and for at most that long. Past that it is asked
 * to come back later (429, Retry-After) instead of being taken on and timing out: each refused
 * agent gets the next free slot of a schedule served, after the line, at the rate the server
 * sets tunnels up, so the refused ones come back spread out, not together.
 */
export class TunnelAdmission {
  /** Each tunnel in progress, and when it entered. */
  private readonly inProgress = new Map<object, number>();
  private readonly line: Held[] = [];
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
    return this.line.length;
  }

  /**
   * Counts `tunnel` in: at once when there is a place, after its wait in line when the line is
   * short enough. Otherwise, or when it waited in line the longest wait, answers the seconds it
   * should wait. A tunnel that leaves while in line (its connection closed) is answered at once
   * and never counted in.
   */
  enter(tunnel: object): Promise<Refusal | undefined> {
    const now = this.now();
    if (this.line.length === 0 && this.hasPlace()) {
      this.inProgress.set(tunnel, now);
      return Promise.resolve(undefined);
    }
    if ((this.line.length + 1) * this.msEach() <= maxLineMs) {
      return new Promise((answer) => {
        this.line.push({ tunnel, since: now, answer });
        this.lineTimer ??= setInterval(() => this.admitFromLine(), lineCheckMs).unref();
      });
    }
    return Promise.resolve(this.refusal(now));
  }

  /** `tunnel` is registered (`completed`) or gone; a second call changes nothing. */
  leave(tunnel: object, completed: boolean) {
    const held = this.line.findIndex((waiting) => waiting.tunnel === tunnel);
    if (held >= 0) this.line.splice(held, 1)[0]?.answer(undefined);
    const enteredAt = this.inProgress.get(tunnel);
    if (enteredAt !== undefined) {
      this.inProgress.delete(tunnel);
      if (completed) {
        this.durationsMs.push(this.now() - enteredAt);
        if (this.durationsMs.length > durationsKept) this.durationsMs.shift();
      }
    }
    this.admitFromLine();
  }

  private hasPlace(): boolean {
    return this.inProgress.size + this.queuedWrites() < this.maxInProgress;
  }

  /**
   * The first in line take the places free now (a place also frees when queued writes finish,
   * hence the timer); those held the longest wait are asked to come back instead.
   */
  private admitFromLine() {
    while (this.line.length > 0 && this.hasPlace()) {
      const held = this.line.shift();
      if (!held) break;
      this.inProgress.set(held.tunnel, this.now());
      held.answer(undefined);
    }
    const now = this.now();
    for (let held = this.line[0]; held && now - held.since >= maxLineMs; held = this.line[0]) {
      this.line.shift();
      held.answer(this.refusal(now));
    }
    if (this.line.length === 0 && this.lineTimer) {
      clearInterval(this.lineTimer);
      this.lineTimer = undefined;
    }
  }

  /** The next free slot of the schedule after the line, at most `maxWaitMs` ahead. */
  private refusal(now: number): Refusal {
    const msEach = this.msEach();
    const slot = Math.min(Math.max(now + this.line.length * msEach, this.lastSlotMs) + msEach, now + maxWaitMs);
    this.lastSlotMs = slot;
    return { retryAfterSeconds: Math.max(1, Math.ceil((slot - now) / 1000)) };
  }

  /** Milliseconds between set-ups at the server's rate when full. */
  private msEach(): number {
    return 1000 / this.setUpsPerSecond();
  }

  /**
   * The server's rate when full (the only time it holds or refuses): as many set-ups as may be in
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
