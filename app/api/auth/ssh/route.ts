import * as api from "@/lib/api/public-keys";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { authSshPublicKey } from "@/lib/services/public-keys";

// POST /api/auth/ssh - a device has data signed for a public key of its namespace
export const POST = route(api.authSshPublicKey, ({ device, body }) => authSshPublicKey(getDb(), device, body));
