import * as api from "@/lib/api/public-keys";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { addPublicKeyTag, updatePublicKeyTags } from "@/lib/services/public-keys";

// POST /api/sshkeys/public-keys/{fingerprint}/tags - add one tag
export const POST = route(api.addPublicKeyTag, ({ scope, params, body }) =>
  addPublicKeyTag(getDb(), scope, params.fingerprint, body.tag),
);

// PUT /api/sshkeys/public-keys/{fingerprint}/tags - replace the filter with these tags
export const PUT = route(api.updatePublicKeyTags, ({ scope, params, body }) =>
  updatePublicKeyTags(getDb(), scope, params.fingerprint, body.tags),
);
