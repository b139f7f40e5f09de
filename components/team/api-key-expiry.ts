/** Keys that expire within this many days carry a warning. */
export const expiringSoonDays = 7;

const dayMs = 86_400_000;

export type Expiry =
  | { kind: "never" }
  | { kind: "expired"; date: Date }
  | { kind: "soon" | "later"; date: Date; daysLeft: number };

/** An API key's `expires_in` (epoch seconds, -1 = never) seen from `now` (epoch ms). */
export function expiryOf(expiresIn: number, now: number): Expiry {
  if (expiresIn === -1) return { kind: "never" };
  const date = new Date(expiresIn * 1000);
  const left = date.getTime() - now;
  if (left <= 0) return { kind: "expired", date };
  // Rounded, not ceiled: the page's clock ticks every 30 s, so a new 30-day key reads 30, not 31.
  const daysLeft = Math.max(1, Math.round(left / dayMs));
  return { kind: daysLeft <= expiringSoonDays ? "soon" : "later", date, daysLeft };
}

/** Soonest expiry first, keys that never expire last, then by name. */
export function byExpiry<T extends { expires_in: number; name: string }>(a: T, b: T) {
  const rank = (key: T) => (key.expires_in === -1 ? Number.POSITIVE_INFINITY : key.expires_in);
  return rank(a) - rank(b) || a.name.localeCompare(b.name);
}
