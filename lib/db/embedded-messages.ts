/**
 * The messages between the server's thread (embedded.ts) and the embedded database's own
 * (embedded-worker.mjs, which reads these types through JSDoc).
 */

/** What the thread is started with. */
export type WorkerStart = { directory: string; startParams: string[] };

/** An error as it crosses from the thread: its message and PostgreSQL's fields (code, constraint...). */
export type ErrorFields = Record<string, unknown> & { message: string };

/** The thread's first message: the data directory opened, or why not (the thread then ends). */
export type Opened = { ready: true } | { ready: false; error: ErrorFields };

/** A statement to run: as the named statement `name` when given, else as the unnamed one. */
export type Statement = {
  id: number;
  name?: string;
  text: string;
  params?: unknown[];
  rowMode?: "array" | "object";
  /** Types whose values stay text rather than being parsed (drizzle's own parsers read them). */
  textTypes?: number[];
};

/** Closes the database, then the thread. */
export type Close = { close: true };

export type Results = { rows: unknown[]; fields: { name: string; dataTypeID: number }[]; affectedRows?: number };

/** The answer to the statement `id`. */
export type Answer = { id: number; result?: Results; error?: ErrorFields };
