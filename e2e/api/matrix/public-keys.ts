import { call, uniqueName } from "@/testing/client";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import { base64Of, randomEd25519Line } from "@/testing/ssh-keys";
import type { Entry } from "../support/matrix";

const newKey = (filter: unknown = { tags: ["matrix-one", "matrix-two"] }) => ({
  data: base64Of(randomEd25519Line()),
  name: uniqueName("key"),
  username: ".*",
  filter,
});

/** A new key of the namespace, made by its owner; returns its fingerprint. */
async function keyIn(namespace: SeededNamespace) {
  const response = await call("POST", "/api/sshkeys/public-keys", {
    token: namespace.owner.tenantToken,
    body: newKey(),
  });
  if (response.status !== 200) throw new Error(`public key create failed: ${response.status} ${response.text}`);
  return response.body.fingerprint as string;
}

export const requests: Record<string, Entry> = {
  listPublicKeys: { request: () => ({ query: "page=1&per_page=5" }) },
  createPublicKey: { request: () => ({ body: newKey({ hostname: "^web-" }) }) },
  updatePublicKey: {
    request: async (namespace) => ({
      params: { fingerprint: await keyIn(namespace) },
      body: { name: uniqueName("key"), username: "^root$", filter: { hostname: ".*" } },
    }),
  },
  deletePublicKey: { request: async (namespace) => ({ params: { fingerprint: await keyIn(namespace) } }) },
  addPublicKeyTag: {
    request: async (namespace) => ({ params: { fingerprint: await keyIn(namespace) }, body: { tag: "matrix-three" } }),
  },
  updatePublicKeyTags: {
    request: async (namespace) => ({ params: { fingerprint: await keyIn(namespace) }, body: { tags: ["matrix-new"] } }),
  },
  removePublicKeyTag: {
    request: async (namespace) => ({ params: { fingerprint: await keyIn(namespace), tag: "matrix-one" } }),
  },
  // A device route: users and API keys are refused (401) in the credentials tests.
  authSshPublicKey: {
    request: () => ({ body: { fingerprint: "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff", data: "nonce" } }),
  },
};
