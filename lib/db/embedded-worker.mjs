// @ts-check
// The embedded database's own thread (started by lib/db/embedded.ts): PGlite runs PostgreSQL in
// WebAssembly on the thread that calls it, so here its statements take the second core instead
// of the server's event loop. Plain JavaScript, so that any Node.js can start it (tests included);
// typechecked through its JSDoc, with the messages of lib/db/embedded-messages.ts.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, parse, protocol } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

/** @typedef {import("./embedded-messages").Answer} Answer */
/** @typedef {import("./embedded-messages").Close} Close */
/** @typedef {import("./embedded-messages").ErrorFields} ErrorFields */
/** @typedef {import("./embedded-messages").Opened} Opened */
/** @typedef {import("./embedded-messages").Statement} Statement */
/** @typedef {import("./embedded-messages").WorkerStart} WorkerStart */
/** @typedef {PGlite["parsers"]} Parsers */
/** @typedef {import("@electric-sql/pglite").QueryOptions} QueryOptions */
/** @typedef {import("@electric-sql/pglite").Results} Results */

if (!parentPort) throw new Error("embedded-worker.mjs runs as a worker thread (lib/db/embedded.ts)");
const port = parentPort;
/** @type {WorkerStart} */
const start = workerData;
/** @type {(message: Opened | Answer) => void} */
const answer = (message) => port.postMessage(message);

/** @param {unknown} value */
const keepText = (value) => value;

/**
 * PGlite's parsers with these types kept as text, made once per list of types: PGlite merges a
 * query's own parsers into its three hundred on every statement, which was about 100 µs of the
 * database's thread for each of drizzle's statements (drizzle names its kept types on every one).
 */
/** @type {Map<string, Parsers>} */
const parsersByKept = new Map();
/** @param {number[]} types */
function parsersKeeping(types) {
  const key = types.join(",");
  let parsers = parsersByKept.get(key);
  if (!parsers) {
    parsers = { ...database.parsers, ...Object.fromEntries(types.map((type) => [type, keepText])) };
    parsersByKept.set(key, parsers);
  }
  return parsers;
}

/**
 * A thrown value that is no Error as text: PGlite's file system throws Emscripten's
 * `ErrnoError`, an object of a name and a number.
 * @param {unknown} thrown
 */
function textOf(thrown) {
  if (typeof thrown !== "object" || thrown === null) return String(thrown);
  const { name, errno } = /** @type {{ name?: unknown, errno?: unknown }} */ (thrown);
  const text = typeof name === "string" ? name : "an error without a message";
  return errno === undefined ? text : `${text} (errno ${String(errno)})`;
}

/**
 * What crosses to the other thread of an error: its message and PostgreSQL's fields (code, constraint...).
 * @param {unknown} error
 * @returns {ErrorFields}
 */
function errorFields(error) {
  /** @type {ErrorFields} */
  const fields = { message: error instanceof Error ? error.message : textOf(error) };
  if (typeof error !== "object" || error === null) return fields;
  for (const [key, value] of Object.entries(error)) {
    if (key === "message") continue;
    if (["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
  }
  return fields;
}

/** @type {PGlite} Set before any statement is listened for (at the end). */
let database;
let isOpen = false;
try {
  database = await PGlite.create(start.directory, { startParams: start.startParams, extensions: { pg_trgm } });
  isOpen = true;
  answer({ ready: true });
} catch (error) {
  // No listener is left: the thread ends after this message.
  answer({ ready: false, error: errorFields(error) });
}

const { serialize } = protocol;

/** @type {Map<string, number[]>} The parameter types of each named statement prepared so far, by name. */
const preparedTypes = new Map();
/** @type {Map<string, number[]>} The parameter types of the other statements run lately, by text (bounded: texts can hold values). */
const statementTypes = new Map();
const maxStatementTypes = 1_000;
const schemaCommands = new Set(["CREATE", "ALTER", "DROP", "ROLLBACK"]);

/**
 * A value as the text PostgreSQL reads for a parameter of that type, as PGlite's `query` writes it.
 * @param {number[]} types
 * @param {unknown[]} params
 */
const serializedValues = (types, params) =>
  params.map((value, i) =>
    value === null || value === undefined ? null : (database.serializers[types[i] ?? 0] ?? String)(value),
  );

/**
 * Runs the messages of one step in one call of PGlite (each call is a turn of its loop and of its
 * file-system sync), a Sync last: it ends the step whatever happened before it, as `query` does.
 * @param {Uint8Array[]} messages
 */
const runStep = (...messages) => database.execProtocol(Buffer.concat([...messages, serialize.sync()]));

/**
 * The parameter types of `text` as a statement named `name` ("" for the unnamed one), parsing it.
 * @param {string} name
 * @param {string} text
 */
async function parsedTypes(name, text) {
  const described = await runStep(serialize.parse({ name, text }), serialize.describe({ type: "S", name }));
  return parse.parseDescribeStatementResults(described.messages);
}

/**
 * Binds the parsed statement `name` and runs it (parsing `textToParse` first, in the same step,
 * when given): its rows, parsed with `parsers` and `options` as `query` does.
 * @param {string} name
 * @param {number[]} types
 * @param {unknown[]} params
 * @param {Parsers} parsers
 * @param {QueryOptions} [options]
 * @param {string} [textToParse]
 * @returns {Promise<Results>}
 */
async function bindAndRun(name, types, params, parsers, options, textToParse) {
  const { messages } = await runStep(
    ...(textToParse === undefined ? [] : [serialize.parse({ name, text: textToParse })]),
    serialize.bind({ statement: name, values: serializedValues(types, params) }),
    serialize.describe({ type: "P" }),
    serialize.execute({}),
  );
  const [result] = parse.parseResults(messages, parsers, options);
  if (!result) throw new Error("the statement gave no result");
  return result;
}

/**
 * Runs `text` as the named statement `name`: parsed and planned on its first call only, where
 * PGlite's `query` parses and plans every statement anew (0.8 ms of a 2.2 ms heartbeat batch of 32
 * rows). The same steps as `query`, through PGlite's own protocol functions, with Bind naming the
 * statement.
 * @param {string} name
 * @param {string} text
 * @param {unknown[]} params
 */
function runPrepared(name, text, params) {
  return database.runExclusive(async () => {
    let types = preparedTypes.get(name);
    if (!types) {
      types = await parsedTypes(name, text);
      preparedTypes.set(name, types);
    }
    return bindAndRun(name, types, params, database.parsers);
  });
}

/**
 * Runs `text` as the unnamed statement, parsed and planned anew each time as PGlite's `query`
 * does, but in one call of PGlite where `query` makes six: once its parameter types are known from
 * an earlier run, Parse goes with Bind, Describe and Execute. With the parsers made once, a
 * `select 1` from the server's thread and back took 221 µs instead of 336-362 µs.
 * @param {string} text
 * @param {unknown[]} params
 * @param {Parsers} parsers
 * @param {QueryOptions} options
 */
function runUnnamed(text, params, parsers, options) {
  return database.runExclusive(async () => {
    const types = statementTypes.get(text);
    const result = types
      ? await bindAndRun("", types, params, parsers, options, text)
      : await bindAndRun("", await typesOf(text), params, parsers, options);
    // A change of the schema, or a rollback that undoes one, can change what a text's
    // parameters are: they are read again.
    if (schemaCommands.has(result.command ?? "")) statementTypes.clear();
    return result;
  });
}

/**
 * The parameter types of `text` as the unnamed statement, kept for its next runs.
 * @param {string} text
 */
async function typesOf(text) {
  const types = await parsedTypes("", text);
  if (statementTypes.size >= maxStatementTypes) statementTypes.clear();
  statementTypes.set(text, types);
  return types;
}

/** @param {Statement | Close} message */
async function serve(message) {
  if ("close" in message) {
    await database.close();
    port.close();
    return;
  }
  const { id, name, text, params, rowMode, textTypes } = message;
  try {
    // PGlite runs its statements one at a time, in the order they were given.
    const result = name
      ? await runPrepared(name, text, params ?? [])
      : await runUnnamed(text, params ?? [], textTypes ? parsersKeeping(textTypes) : database.parsers, { rowMode });
    answer({ id, result });
  } catch (error) {
    answer({ id, error: errorFields(error) });
  }
}

if (isOpen) port.on("message", serve);
