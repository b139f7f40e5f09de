import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent } from "@/agent/agent";

export type InProcessAgent = { agent: Agent; hostname: string; stop: () => Promise<void> };

/**
 * The real agent's code in this process (`agent/agent.ts`), for tests that need many agents
 * without a process each; as root it serves this machine's accounts, as the process does.
 */
export async function startAgentInProcess(baseUrl: string, tenantId: string): Promise<InProcessAgent> {
  const hostname = `dev-${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), "das-agent-"));
  const agent = new Agent({ serverUrl: baseUrl, tenantId, hostname, dataDir, heartbeatMs: 30_000 });
  await agent.start();
  return {
    agent,
    hostname,
    stop: async () => {
      await agent.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
