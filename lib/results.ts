/**
 * What services answer beyond a plain value, in terms of neither HTTP nor the database: the
 * route wrapper turns a page into `X-Total-Count` and a reply into its status and headers.
 */

/** A value with its own status or headers. */
export class Reply<T = unknown> {
  constructor(
    readonly body: T,
    readonly init: { status?: number; headers?: Record<string, string> } = {},
  ) {}
}

/** One page of a list and the total it is a page of. */
export type Page<T> = { items: T[]; total: number };
export const paged = <T>(items: T[], total: number): Page<T> => ({ items, total });

/** A file rather than a JSON value (the agent's installer and bundle): its bytes or text and headers. */
export type FileReply = { body: Buffer | string; headers: Record<string, string> };
