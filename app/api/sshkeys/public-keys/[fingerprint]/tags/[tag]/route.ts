import * as api from "@/lib/api/public-keys";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { removePublicKeyTag } from "@/lib/services/public-keys";

// DELETE /api/sshkeys/public-keys/{fingerprint}/tags/{tag}
export const DELETE = route(api.removePublicKeyTag, ({ scope, params }) =>
  removePublicKeyTag(getDb(), scope, params.fingerprint, params.tag),
);
