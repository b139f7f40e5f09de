import { fileRoute } from "@/lib/http/file-route";
import { agentBundleFile } from "@/lib/services/agent-install";

// GET /agent/agent.tar.gz - the agent for Node.js, as install.sh downloads it (docs/agent-install.md)
export const GET = fileRoute(agentBundleFile);
