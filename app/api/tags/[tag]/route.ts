import * as api from "@/lib/api/tags";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deleteTag, renameTag } from "@/lib/services/tags";

// PUT /api/tags/{tag} - rename everywhere in the namespace
export const PUT = route(api.renameTag, ({ scope, params, body }) => renameTag(getDb(), scope, params.tag, body.tag));

// DELETE /api/tags/{tag} - remove everywhere in the namespace
export const DELETE = route(api.deleteTag, ({ scope, params }) => deleteTag(getDb(), scope, params.tag));
