import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { addMember, leaveNamespace } from "@/lib/services/members";

// POST /api/namespaces/{tenant}/members - add a member by username or e-mail
export const POST = route(api.addMember, ({ scope, body }) => addMember(getDb(), scope, body));

// DELETE /api/namespaces/{tenant}/members - the caller leaves the namespace
export const DELETE = route(api.leaveNamespace, ({ userId, params }) => leaveNamespace(getDb(), userId, params.tenant));
