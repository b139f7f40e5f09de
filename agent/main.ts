import { log } from "../lib/log";
import { Agent } from "./agent";
import { OptionsError, parseOptions } from "./options";

/** `npm run agent -- --server URL --tenant-id UUID [options]` (agent/options.ts lists them). */
function main() {
  let agent: Agent;
  try {
    agent = new Agent(parseOptions(process.argv.slice(2), process.env));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(error instanceof OptionsError ? 2 : 1);
  }
  const stop = (signal: string) => {
    log.info("agent stopping", { signal });
    // Sessions get SIGHUP and the tunnel closes; nothing else keeps the agent.
    setTimeout(() => process.exit(0), 3_000).unref();
    void agent.stop();
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  agent.start().catch((error: unknown) => {
    log.error("agent failed to start", { error: (error as Error).message });
    process.exit(1);
  });
}

main();
