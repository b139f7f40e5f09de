import { consoleBenchmark } from "./console";
import { deviceListBenchmark } from "./devices";
import { heartbeatBenchmark } from "./heartbeat";
import { livenessBenchmark } from "./liveness";
import { pgRestartBenchmark } from "./pg-restart";
import { playerBenchmark } from "./player";
import { preauthBenchmark } from "./preauth";
import { sessionsBenchmark } from "./sessions";
import { simulate } from "./simulator";
import { soakBenchmark } from "./soak";
import { sshBenchmark } from "./ssh";
import { stormBenchmark } from "./storm";
import { webhooksBenchmark } from "./webhooks";

/** `npm run bench -- NAME [--option value ...]` */
const benchmarks: Record<string, (args: Map<string, string>) => Promise<void>> = {
  heartbeat: heartbeatBenchmark,
  liveness: livenessBenchmark,
  devices: deviceListBenchmark,
  simulate,
  ssh: sshBenchmark,
  storm: stormBenchmark,
  soak: soakBenchmark,
  preauth: preauthBenchmark,
  "pg-restart": pgRestartBenchmark,
  console: consoleBenchmark,
  player: playerBenchmark,
  webhooks: webhooksBenchmark,
  sessions: sessionsBenchmark,
};

const [name = "", ...rest] = process.argv.slice(2);
const args = new Map<string, string>();
for (let index = 0; index < rest.length; index += 2)
  args.set((rest[index] ?? "").replace(/^--/, ""), rest[index + 1] ?? "");

const benchmark = benchmarks[name];
if (!benchmark) {
  process.stderr.write(`usage: npm run bench -- (${Object.keys(benchmarks).join(" | ")}) [--option value ...]\n`);
  process.exit(2);
}
benchmark(args).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
