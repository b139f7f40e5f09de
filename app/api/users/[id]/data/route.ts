import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { assertSelf, updateUser } from "@/lib/services/users";

// PATCH /api/users/{id}/data - deprecated form of PATCH /api/users
export const PATCH = route(api.updateUserData, ({ userId, tokenTenant, params, body }) =>
  updateUser(getDb(), assertSelf(userId, params.id), tokenTenant, body),
);
