/**
 * Jittered exponential back-off: `initialMs` doubling up to `maxMs`, each delay moved by up to
 * +-`jitter` so that many agents cut off together do not come back together.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = 1_000,
    private readonly maxMs = 60_000,
    private readonly jitter = 0.25,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(base * (1 + this.jitter * (2 * this.random() - 1)));
  }

  /** After a success: the next failure starts over from the initial delay. */
  reset() {
    this.attempt = 0;
  }
}
