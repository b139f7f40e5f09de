// The embedded database's own thread (started by lib/db/embedded.ts): PGlite runs PostgreSQL in
// WebAssembly on the thread that calls it, so here its statements take the second core instead
// of the server's event loop. Plain JavaScript, so that any Node.js can start it (tests included).
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, parse, protocol } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

const keepText = (value) => value;

/**
 * PGlite's parsers with these types kept as text, made once per list of types: PGlite merges a
 * query's own parsers into its three hundred on every statement, which was about 100 µs of the
 * database's thread for each of drizzle's statements (drizzle names its kept types on every one).
 */
const parsersByKept = new Map();
function parsersKeeping(types) {
  const key = types.join(",");
  let parsers = parsersByKept.get(key);
  if (!parsers) {
    parsers = { ...database.parsers, ...Object.fromEntries(types.map((type) => [type, keepText])) };
    parsersByKept.set(key, parsers);
  }
  return parsers;
}

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
/** The parameter types of the other statements run lately, by text (bounded: texts can hold values). */
const statementTypes = new Map();
const maxStatementTypes = 1_000;
const schemaCommands = new Set(["CREATE", "ALTER", "DROP", "ROLLBACK"]);

/** A value as the text PostgreSQL reads for a parameter of that type, as PGlite's `query` writes it. */
const serializedValues = (types, params) =>
  params.map((value, i) =>
    value === null || value === undefined ? null : (database.serializers[types[i]] ?? String)(value),
  );

/**
 * Runs the messages of one step in one call of PGlite (each call is a turn of its loop and of its
 * file-system sync), a Sync last: it ends the step whatever happened before it, as `query` does.
 */
const runStep = (...messages) => database.execProtocol(Buffer.concat([...messages, serialize.sync()]));

/** The parameter types of `text` as a statement named `name` ("" for the unnamed one), parsing it. */
async function parsedTypes(name, text) {
  const described = await runStep(serialize.parse({ name, text }), serialize.describe({ type: "S", name }));
  return parse.parseDescribeStatementResults(described.messages);
}

/**
 * Binds the parsed statement `name` and runs it (parsing `textToParse` first, in the same step,
 * when given): its rows, parsed with `parsers` and `options` as `query` does.
 */
async function bindAndRun(name, types, params, parsers, options, textToParse) {
  const { messages } = await runStep(
    ...(textToParse === undefined ? [] : [serialize.parse({ name, text: textToParse })]),
    serialize.bind({ statement: name, values: serializedValues(types, params) }),
    serialize.describe({ type: "P" }),
    serialize.execute({}),
  );
  return parse.parseResults(messages, parsers, options)[0];
}

/**
 * Runs `text` as the named statement `name`: parsed and planned on its first call only, where
 * PGlite's `query` parses and plans every statement anew (0.8 ms of a 2.2 ms heartbeat batch of 32
 * rows). The same steps as `query`, through PGlite's own protocol functions, with Bind naming the
 * statement.
 */
function runPrepared(name, text, params) {
  return database.runExclusive(async () => {
    if (!preparedTypes.has(name)) preparedTypes.set(name, await parsedTypes(name, text));
    return bindAndRun(name, preparedTypes.get(name), params, database.parsers);
  });
}

/**
 * Runs `text` as the unnamed statement, parsed and planned anew each time as PGlite's `query`
 * does, but in one call of PGlite where `query` makes six: once its parameter types are known from
 * an earlier run, Parse goes with Bind, Describe and Execute. With the parsers made once, a
 * `select 1` from the server's thread and back took 221 µs instead of 336-362 µs.
 */
function runUnnamed(text, params, parsers, options) {
  return database.runExclusive(async () => {
    const types = statementTypes.get(text);
    const result = types
      ? await bindAndRun("", types, params, parsers, options, text)
      : await bindAndRun("", await typesOf(text), params, parsers, options);
    // A change of the schema, or a rollback that undoes one, can change what a text's
    // parameters are: they are read again.
    if (schemaCommands.has(result.command)) statementTypes.clear();
    return result;
  });
}

/** The parameter types of `text` as the unnamed statement, kept for its next runs. */
async function typesOf(text) {
  const types = await parsedTypes("", text);
  if (statementTypes.size >= maxStatementTypes) statementTypes.clear();
  statementTypes.set(text, types);
  return types;
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
      const result = name
        ? await runPrepared(name, text, params ?? [])
        : await runUnnamed(text, params ?? [], textTypes ? parsersKeeping(textTypes) : database.parsers, { rowMode });
      parentPort.postMessage({ id, result });
    } catch (error) {
      parentPort.postMessage({ id, error: errorFields(error) });
    }
  });
}
