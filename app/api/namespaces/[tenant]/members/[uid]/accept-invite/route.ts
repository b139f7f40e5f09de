import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { lookupInvitedUser } from "@/lib/services/invitations";

// GET /api/namespaces/{tenant}/members/{uid}/accept-invite?sig= - the invited account's status
export const GET = route(api.lookupInvitedUser, ({ params, query }) =>
  lookupInvitedUser(getDb(), params.tenant, params.uid, query.sig),
);
