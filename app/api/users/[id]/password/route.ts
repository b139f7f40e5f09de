import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { assertSelf, updateUser } from "@/lib/services/users";

// PATCH /api/users/{id}/password - deprecated form of PATCH /api/users
export const PATCH = route(api.updateUserPassword, ({ userId, tokenTenant, params, body }) =>
  updateUser(getDb(), assertSelf(userId, params.id), tokenTenant, {
    password: body.new_password,
    current_password: body.current_password,
  }),
);
