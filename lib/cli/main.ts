import { readFileSync } from "node:fs";
import { internalSecret, internalSecretHeader } from "../auth/internal";
import { type Config, getConfig } from "../config";
import { openDatabase } from "../db";
import { errorText } from "../errors";
import { readLiveServer, type ServerFile } from "../runtime";
import { type CommandResult, type Resolved, resolveCommand, runCommand } from "./commands";

async function runOnServer(server: ServerFile, args: string[], input: string | undefined): Promise<CommandResult> {
  const response = await fetch(`${server.url}/internal/admin`, {
    method: "POST",
    headers: { "content-type": "application/json", [internalSecretHeader]: internalSecret() },
    body: JSON.stringify({ args, input }),
  });
  if (!response.ok) {
    throw new Error(`the running server refused the command (${response.status}): ${await response.text()}`);
  }
  return (await response.json()) as CommandResult;
}

/**
 * The content of the command's file argument, read here, where the file is: the server that
 * may carry out the command can have another working directory or another user.
 */
function readInput({ command, rest }: Resolved): string | CommandResult | undefined {
  if (command.file === undefined) return undefined;
  const file = rest[command.file] ?? "";
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : errorText(error);
    return { code: 2, output: `error: cannot read '${file}': ${reason}` };
  }
}

/**
 * On PostgreSQL the CLI works on the database directly. On the embedded database only one
 * process may open the data directory, so while a server runs on it the command is carried out
 * by that server (POST /internal/admin with the internal secret).
 */
async function execute(config: Config, args: string[]): Promise<CommandResult> {
  const resolved = resolveCommand(args);
  if (!("command" in resolved)) return resolved;
  const input = readInput(resolved);
  if (typeof input === "object") return input;
  const server = config.DATABASE_URL ? undefined : readLiveServer(config.DATA_DIR);
  if (server) return runOnServer(server, args, input);
  const database = await openDatabase(config);
  try {
    return await runCommand(database.db, args, input);
  } finally {
    await database.close();
  }
}

Promise.resolve()
  .then(() => execute(getConfig(), process.argv.slice(2)))
  .then(
    (result) => {
      (result.code === 0 ? process.stdout : process.stderr).write(`${result.output.trimEnd()}\n`);
      process.exit(result.code);
    },
    (error: unknown) => {
      process.stderr.write(`error: ${errorText(error)}\n`);
      process.exit(1);
    },
  );
