import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { updateUser } from "@/lib/services/users";

// PATCH /api/users - update the current user
export const PATCH = route(api.updateUser, ({ userId, tokenTenant, body }) =>
  updateUser(getDb(), userId, tokenTenant, body),
);
