import { internalSecret, internalSecretHeader } from "../auth/internal";
import { ConfigError, getConfig } from "../config";
import { openDatabase } from "../db";
import { readLiveServer } from "../runtime";
import { type CommandResult, runCommand } from "./commands";

/**
 * The admin CLI. On PostgreSQL it works on the database directly. On the embedded database
 * only one process may open the data directory, so while a server runs on it the command is
 * carried out by that server (POST /internal/admin with the internal secret).
 */
async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const config = getConfig();
  const server = config.DATABASE_URL ? undefined : readLiveServer(config.DATA_DIR);
  let result: CommandResult;
  if (server) {
    const response = await fetch(`${server.url}/internal/admin`, {
      method: "POST",
      headers: { "content-type": "application/json", [internalSecretHeader]: internalSecret() },
      body: JSON.stringify({ args }),
    });
    if (!response.ok)
      throw new Error(`the running server refused the command (${response.status}): ${await response.text()}`);
    result = (await response.json()) as CommandResult;
  } else {
    const database = await openDatabase(config);
    try {
      result = await runCommand(database.db, args);
    } finally {
      await database.close();
    }
  }
  (result.code === 0 ? process.stdout : process.stderr).write(`${result.output.trimEnd()}\n`);
  return result.code;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `error: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
