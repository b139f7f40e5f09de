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
 * The delay a server asked for with `Retry-After` (seconds, or an HTTP date), never shorter than
 * asked, lengthened at random by up to a second plus a tenth of it. The second is the header's
 * granule: a server that spreads the agents it refuses over its free slots still gives many of
 * them the same whole second, and they should arrive spread over it, not at its start. The tenth
 * keeps agents that a server refused together with one same delay from coming back together, while
 * a long wait is not drawn out much past what the server scheduled. Undefined when the header is
 * missing or unreadable.
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
  const wait = Math.max(0, asked);
  return Math.round(wait + random() * (1_000 + wait / 10));
}
