import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deleteOwnAccount } from "@/lib/services/users";

// DELETE /api/user - delete the current user's account
export const DELETE = route(api.deleteUser, ({ userId }) => deleteOwnAccount(getDb(), userId));
