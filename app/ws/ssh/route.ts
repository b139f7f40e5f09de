import * as api from "@/lib/api/terminal";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { issueTerminalToken } from "@/lib/services/terminal";

// POST /ws/ssh - a one-time token for the browser terminal (GET /ws/ssh upgrades, in server.ts)
export const POST = route(api.createTerminalToken, ({ scope, body, source }) =>
  issueTerminalToken(getDb(), scope, body, source),
);
