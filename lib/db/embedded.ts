import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Answer, Close, ErrorFields, Opened, Results, Statement, WorkerStart } from "./embedded-messages";

type QueryOptions = { rowMode?: "array" | "object"; parsers?: Record<number, unknown> };
type Waiting = { transaction: boolean; go: () => void };

/**
 * The statements of one open transaction, as PGlite's own `Transaction` gives them to drizzle,
 * and as named statements.
 */
export type EmbeddedTransaction = {
  readonly embedded: true;
  query: EmbeddedDatabase["query"];
  queryPrepared: EmbeddedDatabase["queryPrepared"];
};

const workerFile = path.join(process.cwd(), "lib/db/embedded-worker.mjs");

function errorOf({ message, ...fields }: ErrorFields): Error {
  return Object.assign(new Error(message), fields);
}

const threadEnded = (code: number) => new Error(`the embedded database's thread ended (exit code ${code})`);

/**
 * The embedded database (PGlite) on a thread of its own, with the part of PGlite's interface that
 * drizzle's PGlite driver uses (`query`, `transaction`): PostgreSQL's work takes the second core,
 * and the server's event loop only sends each statement and reads its rows. Like PGlite itself,
 * one transaction at a time: while one is open, other statements and transactions wait their
 * turn, in order; statements outside transactions go to the thread at once, where they run one
 * after the other.
 */
export class EmbeddedDatabase {
  /** How lib/db tells this client from node-postgres's pool (one process, one transaction at a time). */
  readonly embedded = true;
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (result: Results) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #stopped: Error | undefined;
  #transactionOpen = false;
  readonly #waiting: Waiting[] = [];
  readonly #whenIdle: (() => void)[] = [];

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on("message", (answer: Answer) => this.#settle(answer));
    worker.on("error", (error) => this.#stop(error));
    worker.on("exit", (code) => this.#stop(threadEnded(code)));
    worker.unref();
  }

  /** Starts the thread and opens the data directory; rejects with PGlite's error if it cannot. */
  static open(directory: string, startParams: string[]): Promise<EmbeddedDatabase> {
    const workerData: WorkerStart = { directory, startParams };
    const worker = new Worker(workerFile, { workerData });
    return new Promise((resolve, reject) => {
      const ended = (code: number) => reject(threadEnded(code));
      worker.once("error", reject);
      worker.once("exit", ended);
      worker.once("message", (message: Opened) => {
        worker.off("error", reject);
        worker.off("exit", ended);
        if (message.ready) resolve(new EmbeddedDatabase(worker));
        else {
          const { message: reason, ...fields } = message.error;
          reject(errorOf({ ...fields, message: `the embedded database in ${directory} did not open: ${reason}` }));
        }
      });
    });
  }

  query(text: string, params?: unknown[], options?: QueryOptions): Promise<Results> {
    return this.#outsideTransaction(() => this.#send(text, params, options));
  }

  /** `query` as the named statement `name`, which the thread parses and plans once (embedded-worker.mjs). */
  queryPrepared(name: string, text: string, params: unknown[]): Promise<Results> {
    return this.#outsideTransaction(() => this.#send(text, params, { name }));
  }

  async transaction<T>(work: (tx: EmbeddedTransaction) => Promise<T>): Promise<T> {
    await this.#turn(true);
    try {
      await this.#send("begin");
      const result = await work({
        embedded: true,
        query: (text, params, options) => this.#send(text, params, options),
        queryPrepared: (name, text, params) => this.#send(text, params, { name }),
      });
      await this.#send("commit");
      return result;
    } catch (error) {
      if (!this.#stopped) await this.#send("rollback").catch(() => undefined);
      throw error;
    } finally {
      this.#endTransaction();
    }
  }

  /** Ends the thread after every statement and transaction given before. */
  async close(): Promise<void> {
    await this.#turn(true);
    if (this.#pending.size > 0) await new Promise<void>((resolve) => this.#whenIdle.push(resolve));
    if (this.#stopped) return;
    const ended = new Promise((resolve) => this.#worker.once("exit", resolve));
    this.#worker.ref();
    this.#worker.postMessage({ close: true } satisfies Close);
    await ended;
  }

  /** Sends a statement that belongs to no transaction, after the open one and those waiting before it. */
  #outsideTransaction(send: () => Promise<Results>): Promise<Results> {
    // Sent at once when it may be: a close called right after must find it among those pending.
    const turn = this.#turn(false);
    return turn ? turn.then(send) : send();
  }

  /** Waits, if a transaction is open or others wait before this one; a transaction then holds the turn. */
  #turn(transaction: boolean): Promise<void> | undefined {
    if (this.#stopped) return undefined;
    if (!this.#transactionOpen && this.#waiting.length === 0) {
      this.#transactionOpen = transaction;
      return undefined;
    }
    return new Promise((go) => this.#waiting.push({ transaction, go }));
  }

  /** Lets the waiting in, in order: every statement up to the next transaction, and that one. */
  #endTransaction() {
    this.#transactionOpen = false;
    while (!this.#transactionOpen && this.#waiting.length > 0) {
      const next = this.#waiting.shift() as Waiting;
      this.#transactionOpen = next.transaction;
      next.go();
    }
  }

  /** `options.name`: run as that named statement (prepared on the thread's first call). */
  #send(text: string, params?: unknown[], options?: QueryOptions & { name?: string }): Promise<Results> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    // Drizzle's parsers keep some types' text as it is: the thread does the same for those types
    // (functions cannot cross to it).
    const textTypes = options?.parsers && Object.keys(options.parsers).map(Number);
    const answered = new Promise<Results>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    // The thread keeps the process alive only while it owes an answer.
    if (this.#pending.size === 1) this.#worker.ref();
    const statement: Statement = { id, name: options?.name, text, params, rowMode: options?.rowMode, textTypes };
    this.#worker.postMessage(statement);
    return answered;
  }

  #settle({ id, result, error }: Answer) {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#becameIdle();
    if (error) pending.reject(errorOf(error));
    else pending.resolve(result as Results);
  }

  #stop(cause: Error) {
    if (this.#stopped) return;
    // SQLSTATE crash_shutdown: the request is answered 503, as for a server that went away.
    this.#stopped = Object.assign(new Error(`the embedded database stopped: ${cause.message}`), { code: "57P02" });
    for (const { reject } of this.#pending.values()) reject(this.#stopped);
    this.#pending.clear();
    this.#becameIdle();
    // Whatever waits for its turn goes on, to be refused.
    for (const { go } of this.#waiting.splice(0)) go();
  }

  #becameIdle() {
    this.#worker.unref();
    for (const resolve of this.#whenIdle.splice(0)) resolve();
  }
}
