import { fileRoute } from "@/lib/http/file-route";
import { installScriptFile } from "@/lib/services/agent-install";

// GET /install.sh - the agent's installer, no credentials (docs/agent-install.md)
export const GET = fileRoute(installScriptFile);
