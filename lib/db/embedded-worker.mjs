// The embedded database's own thread (started by lib/db/embedded.ts): PGlite runs PostgreSQL in
// WebAssembly on the thread that calls it, so here its statements take the second core instead
// of the server's event loop. Plain JavaScript, so that any Node.js can start it (tests included).
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
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

if (database) {
  parentPort.on("message", async (message) => {
    if (message.close) {
      await database.close();
      parentPort.close();
      return;
    }
    const { id, text, params, rowMode, textTypes } = message;
    try {
      // PGlite runs its statements one at a time, in the order they were given.
      const parsers = textTypes && Object.fromEntries(textTypes.map((type) => [type, keepText]));
      const result = await database.query(text, params, { rowMode, parsers });
      parentPort.postMessage({ id, result });
    } catch (error) {
      parentPort.postMessage({ id, error: errorFields(error) });
    }
  });
}
