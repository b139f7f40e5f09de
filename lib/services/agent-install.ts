import { processSlot } from "../process-state";
import type { FileReply } from "../results";

/** What the server serves for installing the agent on a device (docs/agent-install.md). */
export type AgentInstall = {
  version: string;
  /** The agent's files as a gzip'd tar. */
  tarball: Buffer;
  /** The tarball's SHA-256, hex. */
  sha256: string;
  /** The installer, the server's address, the version and the checksum filled in. */
  installer: string;
  /** The platform of the node-pty addon in the tarball (`linux-x64`), null without one. */
  ptyPlatform: string | null;
};

// server.ts provides the builder (lib/build/agent-bundle.ts), which runs esbuild: route handlers,
// bundled by Next.js, only ask for its result.
const builder = processSlot<() => Promise<AgentInstall>>("agent install builder");
const built = processSlot<Promise<AgentInstall>>("agent install");

export function provideAgentInstall(build: () => Promise<AgentInstall>) {
  builder.set(build);
  built.set(undefined);
}

/** The installer and the tarball: built on first use, then kept; a failed build is tried again next time. */
export function agentInstall(): Promise<AgentInstall> {
  const current = built.get();
  if (current) return current;
  const build = builder.get();
  if (!build) return Promise.reject(new Error("the agent bundle is made by the server process (server.ts)"));
  const promise = build();
  built.set(promise);
  promise.catch(() => {
    if (built.get() === promise) built.set(undefined);
  });
  return promise;
}

/** `GET /install.sh`: the installer, never cached (it names the current version and checksum). */
export async function installScriptFile(): Promise<FileReply> {
  const { installer, version } = await agentInstall();
  return {
    body: installer,
    headers: {
      "content-type": "text/x-shellscript; charset=utf-8",
      "cache-control": "no-store",
      "x-agent-version": version,
    },
  };
}

/** `GET /agent/agent.tar.gz`: the agent's files; its ETag is its checksum. */
export async function agentBundleFile(): Promise<FileReply> {
  const { tarball, sha256, version } = await agentInstall();
  return {
    body: tarball,
    headers: {
      "content-type": "application/gzip",
      "content-disposition": `attachment; filename="device-access-agent-${version}.tar.gz"`,
      "cache-control": "no-cache",
      etag: `"${sha256}"`,
      "x-agent-version": version,
      "x-checksum-sha256": sha256,
    },
  };
}

/** `GET /agent/agent.tar.gz.sha256`: the checksum as `sha256sum` prints it. */
export async function agentChecksumFile(): Promise<FileReply> {
  const { sha256, version } = await agentInstall();
  return {
    body: `${sha256}  agent.tar.gz\n`,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache", "x-agent-version": version },
  };
}
