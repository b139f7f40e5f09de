// The embedded database's own thread (started by lib/db/embedded.ts): PGlite runs PostgreSQL in
// WebAssembly on the thread that calls it, so here its statements take the second core instead
// of the server's event loop. Plain JavaScript, so that any Node.js can start it (tests included).
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, parse, protocol } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

const keepText = (value) => value;

/** What crosses to the other thread of an error: its message and PostgreSQL's fields (code, constraint...). */
function errorFields(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = { message: error.message };
  for (const [key, value] of Object.entries(error)) {
    if (["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
  }
  return fields;
}

let database;
try {
  database = await PGlite.create(workerData.directory, {
    startParams: workerData.startParams,
    extensions: { pg_trgm },
  });
  parentPort.postMessage({ ready: true });
} catch (error) {
  // No listener is left: the thread ends after this message.
  parentPort.postMessage({ ready: false, error: errorFields(error) });
}

const { serialize } = protocol;

/** The parameter types of each named statement prepared so far, by name. */
const preparedTypes = new Map();

/**
 * Runs `text` as the named statement `name`: parsed and planned on its first call only, where
 * PGlite's `query` parses and plans every statement anew (0.8 ms of a 2.2 ms heartbeat batch of 32
 * rows). The same steps as `query`, through PGlite's own protocol functions, with Bind naming the
 * statement; a Sync ends each step whatever happened, as `query` does.
 */
function runPrepared(name, text, params) {
  return database.runExclusive(async () => {
    if (!preparedTypes.has(name)) {
      try {
        await database.execProtocol(serialize.parse({ name, text }));
        const described = await database.execProtocol(serialize.describe({ type: "S", name }));
        preparedTypes.set(name, parse.parseDescribeStatementResults(described.messages));
      } finally {
        await database.execProtocol(serialize.sync());
      }
    }
    const types = preparedTypes.get(name);
    const values = params.map((value, i) =>
      value === null || value === undefined ? null : (database.serializers[types[i]] ?? String)(value),
    );
    // The four messages in one call: each call of execProtocol is a turn of PGlite's loop and of
    // its file-system sync, and a Sync at the end ends the step whatever happened before it.
    const { messages } = await database.execProtocol(
      Buffer.concat([
        serialize.bind({ statement: name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    return parse.parseResults(messages, database.parsers)[0];
  });
}

if (database) {
  parentPort.on("message", async (message) => {
    if (message.close) {
      await database.close();
      parentPort.close();
      return;
    }
    const { id, name, text, params, rowMode, textTypes } = message;
    try {
      // PGlite runs its statements one at a time, in the order they were given.
      const parsers = textTypes && Object.fromEntries(textTypes.map((type) => [type, keepText]));
      const result = name
        ? await runPrepared(name, text, params ?? [])
        : await database.query(text, params, { rowMode, parsers });
      parentPort.postMessage({ id, result });
    } catch (error) {
      parentPort.postMessage({ id, error: errorFields(error) });
    }
  });
}
