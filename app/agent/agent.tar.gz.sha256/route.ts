import { fileRoute } from "@/lib/http/file-route";
import { agentChecksumFile } from "@/lib/services/agent-install";

// GET /agent/agent.tar.gz.sha256 - the bundle's checksum, as sha256sum prints it
export const GET = fileRoute(agentChecksumFile);
