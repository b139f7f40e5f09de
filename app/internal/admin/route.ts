import { adminCommand } from "@/lib/api/internal";
import { runCommand } from "@/lib/cli/commands";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";

// POST /internal/admin - an admin CLI command, run by the server that holds the embedded database
export const POST = route(adminCommand, ({ body }) => runCommand(getDb(), body.args, body.input));
