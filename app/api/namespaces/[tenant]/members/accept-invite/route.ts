import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { acceptInvitation } from "@/lib/services/invitations";

// PATCH /api/namespaces/{tenant}/members/accept-invite - the invited user accepts
export const PATCH = route(api.acceptInvitation, ({ userId, params, body }) =>
  acceptInvitation(getDb(), userId, params.tenant, body.sig),
);
