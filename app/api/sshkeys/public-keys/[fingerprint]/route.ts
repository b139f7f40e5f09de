import * as api from "@/lib/api/public-keys";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deletePublicKey, updatePublicKey } from "@/lib/services/public-keys";

// PUT /api/sshkeys/public-keys/{fingerprint} - name, username and filter
export const PUT = route(api.updatePublicKey, ({ scope, params, body }) =>
  updatePublicKey(getDb(), scope, params.fingerprint, body),
);

// DELETE /api/sshkeys/public-keys/{fingerprint}
export const DELETE = route(api.deletePublicKey, ({ scope, params }) =>
  deletePublicKey(getDb(), scope, params.fingerprint),
);
