import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { removeMember, updateMember } from "@/lib/services/members";

// PATCH /api/namespaces/{tenant}/members/{uid} - change a member's role
export const PATCH = route(api.updateMember, ({ scope, params, body }) =>
  updateMember(getDb(), scope, params.uid, body.role),
);

// DELETE /api/namespaces/{tenant}/members/{uid}
export const DELETE = route(api.removeMember, ({ scope, params }) => removeMember(getDb(), scope, params.uid));
