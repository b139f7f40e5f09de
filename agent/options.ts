import { hostname as osHostname } from "node:os";
import { parseArgs } from "node:util";
import { z } from "zod";

/** Every option of the agent: a command-line flag and the environment variable that sets it too. */
const flags = {
  server: "SERVER_ADDRESS",
  "tenant-id": "TENANT_ID",
  hostname: "PREFERRED_HOSTNAME",
  "private-key": "PRIVATE_KEY",
  "data-dir": "AGENT_DATA_DIR",
  "heartbeat-interval": "HEARTBEAT_INTERVAL",
  "server-host-key": "SERVER_HOST_KEY",
  listen: "AGENT_LISTEN",
} as const;

type Flag = keyof typeof flags;

/**
 * A device hostname as the server accepts it: one DNS label of letters, digits and inner hyphens
 * (an FQDN keeps its first label).
 */
export function hostnameLabel(name: string): string {
  const label = (name.split(".")[0] ?? "").replace(/[^a-zA-Z0-9-]/g, "-").slice(0, 63);
  return label.replace(/^-+|-+$/g, "");
}

const optionsSchema = z.object({
  server: z
    .url({ protocol: /^https?$/, message: "--server must be an http:// or https:// URL" })
    .transform((url) => url.replace(/\/+$/, "")),
  "tenant-id": z.uuid({ message: "--tenant-id must be the namespace's tenant id (a UUID)" }),
  hostname: z
    .string()
    .default(() => osHostname())
    .transform(hostnameLabel),
  "private-key": z.string().optional(),
  "data-dir": z.string().min(1).default("./agent-data"),
  "heartbeat-interval": z.coerce.number().min(0.1).max(3600).default(30),
  "server-host-key": z.string().optional(),
  listen: z
    .string()
    .regex(/^(.+):(\d{1,5})$/, "--listen must be HOST:PORT")
    .optional(),
});

export type AgentOptions = {
  serverUrl: string;
  tenantId: string;
  hostname: string;
  privateKeyFile?: string;
  dataDir: string;
  heartbeatMs: number;
  serverHostKey?: string;
  listen?: { host: string; port: number };
};

export class OptionsError extends Error {}

export const usage = `usage: npm run agent -- --server URL --tenant-id UUID [options]
   or, installed by install.sh: device-access-agent [options] (its agent.env sets the others)
  --server URL               the server's address (SERVER_ADDRESS)
  --tenant-id UUID           the namespace the device joins (TENANT_ID)
  --hostname NAME            the device's name (PREFERRED_HOSTNAME; default: the OS hostname)
  --private-key FILE         the device's RSA key (PRIVATE_KEY; default: DATA_DIR/agent.key, created on first start)
  --data-dir DIR             the agent's files (AGENT_DATA_DIR; default ./agent-data)
  --heartbeat-interval SEC   seconds between calls to the server (HEARTBEAT_INTERVAL; default 30)
  --server-host-key KEY      the server's SSH host key ("ssh-ed25519 AAAA..."), pinned up front
                             instead of on first contact (SERVER_HOST_KEY)
  --listen HOST:PORT         also serve the device's SSH server directly on this address, for
                             diagnostics and measurements (AGENT_LISTEN; default: off)`;

/** Options from the command line, else the environment, else their defaults; the message names every bad one. */
export function parseOptions(argv: string[], env: Record<string, string | undefined>): AgentOptions {
  let values: Partial<Record<Flag, string>>;
  try {
    const options = Object.fromEntries(Object.keys(flags).map((flag) => [flag, { type: "string" as const }]));
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as typeof values;
  } catch (error) {
    throw new OptionsError(`${(error as Error).message}\n${usage}`);
  }
  const merged = Object.fromEntries(
    (Object.entries(flags) as [Flag, string][]).map(([flag, variable]) => [
      flag,
      values[flag] ?? env[variable] ?? undefined,
    ]),
  );
  const parsed = optionsSchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `--${issue.path.join(".")}: ${issue.message}`);
    throw new OptionsError(`${problems.join("\n")}\n${usage}`);
  }
  const options = parsed.data;
  if (!options.hostname) throw new OptionsError(`--hostname: no usable hostname\n${usage}`);
  const listen = options.listen ? /^(.+):(\d{1,5})$/.exec(options.listen) : null;
  return {
    serverUrl: options.server,
    tenantId: options["tenant-id"],
    hostname: options.hostname,
    privateKeyFile: options["private-key"],
    dataDir: options["data-dir"],
    heartbeatMs: Math.round(options["heartbeat-interval"] * 1000),
    serverHostKey: options["server-host-key"],
    listen: listen ? { host: listen[1] ?? "127.0.0.1", port: Number(listen[2]) } : undefined,
  };
}
