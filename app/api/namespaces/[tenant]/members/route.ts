import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { addMember } from "@/lib/services/members";

// POST /api/namespaces/{tenant}/members - add a member by username or e-mail
export const POST = route(api.addMember, ({ scope, body }) => addMember(getDb(), scope, body));
