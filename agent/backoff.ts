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

/**
 * The delay a server asked for with `Retry-After` (seconds, or an HTTP date), lengthened by up to
 * half at random so that the agents it refused together do not come back together; never shorter
 * than asked. Undefined when the header is missing or unreadable.
 */
export function retryAfterDelay(
  header: string | null | undefined,
  random: () => number = Math.random,
  now = Date.now(),
): number | undefined {
  const text = header?.trim() ?? "";
  // An HTTP date names its weekday and month: bare numbers other than seconds are no date.
  const asked = /^\d+$/.test(text) ? Number(text) * 1000 : /[a-z]/i.test(text) ? Date.parse(text) - now : Number.NaN;
  if (!Number.isFinite(asked)) return undefined;
  return Math.round(Math.max(0, asked) * (1 + 0.5 * random()));
}
