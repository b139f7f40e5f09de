import * as api from "@/lib/api/public-keys";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createPublicKey, listPublicKeys } from "@/lib/services/public-keys";

// GET /api/sshkeys/public-keys
export const GET = route(api.listPublicKeys, ({ scope, query }) => listPublicKeys(getDb(), scope, query));

// POST /api/sshkeys/public-keys - the fingerprint is computed from `data`
export const POST = route(api.createPublicKey, ({ scope, body }) => createPublicKey(getDb(), scope, body));
