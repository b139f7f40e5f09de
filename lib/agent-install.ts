// How a device gets the agent: the paths the server serves it under and the command a person runs
// on the device (docs/agent-install.md). Imports nothing, so the console's pages can use it too.

/** The installer, a POSIX sh script with the server's address baked in (it downloads /agent/agent.tar.gz). */
export const installScriptPath = "/install.sh";

export type InstallCommandInput = {
  /** The server's address as devices reach it: `PUBLIC_URL`, or `${location.protocol}//${info.endpoints.api}`. */
  server: string;
  /** The namespace the device joins (its `tenant_id`). */
  tenantId: string;
  /** The device's name, else the device's own hostname. */
  hostname?: string;
  /** `wget` for devices without curl (busybox has wget). */
  downloader?: "curl" | "wget";
};

/** A word as sh reads it: as it is when it holds nothing sh would interpret, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command that installs and starts the agent on a Linux device, to run as root there:
 * `curl -fsSL http://SERVER/install.sh | sh -s -- --tenant TENANT_ID [--hostname NAME]`.
 */
export function agentInstallCommand({ server, tenantId, hostname, downloader = "curl" }: InstallCommandInput): string {
  // As the URL class writes it: `https://host:443` (from /info's `host:port`) is `https://host`.
  const base = new URL(server);
  const url = shellWord(`${base.origin}${base.pathname.replace(/\/+$/, "")}${installScriptPath}`);
  const fetch = downloader === "wget" ? `wget -qO- ${url}` : `curl -fsSL ${url}`;
  const flags = ["--tenant", tenantId, ...(hostname ? ["--hostname", hostname] : [])].map(shellWord);
  return `${fetch} | sh -s -- ${flags.join(" ")}`;
}
