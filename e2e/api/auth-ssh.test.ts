import { createPrivateKey, createPublicKey, type KeyObject, verify } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { call } from "@/testing/client";
import { type SeededDevice, seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedApiKey, seedNamespace } from "@/testing/seeds/namespaces";
import { base64Of, randomEd25519Line } from "@/testing/ssh-keys";

const authUrl = "/api/auth/ssh";

async function createKey(namespace: SeededNamespace, filter: unknown = { hostname: ".*" }) {
  const response = await call("POST", "/api/sshkeys/public-keys", {
    token: namespace.owner.tenantToken,
    body: { data: base64Of(randomEd25519Line()), name: "key", username: ".*", filter },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.fingerprint as string;
}

const authSsh = (device: SeededDevice, fingerprint: string, data: string) =>
  call("POST", authUrl, { token: device.token, body: { fingerprint, data } });

/** The server's public key, from the private key it generated into its DATA_DIR. */
function serverPublicKey(): KeyObject {
  const file = path.join(inject("dataDir"), "signing.key");
  return createPublicKey(createPrivateKey(readFileSync(file, "utf8")));
}

const isValidSignature = (data: string, signature: string) =>
  verify("sha256", Buffer.from(data), serverPublicKey(), Buffer.from(signature, "base64"));

describe("POST /api/auth/ssh", () => {
  let namespace: SeededNamespace;
  let device: SeededDevice;
  let fingerprint: string;
  beforeAll(async () => {
    namespace = await seedNamespace();
    device = await seedDevice(namespace, { hostname: "web-01" });
    fingerprint = await createKey(namespace);
  });

  it("signs the data with the server's key (RSA, SHA-256) for a key of the device's namespace", async () => {
    const data = "nonce-0f3a9c";
    const response = await authSsh(device, fingerprint, data);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ signature: expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/) });
    expect(isValidSignature(data, response.body.signature)).toBe(true);
    expect(isValidSignature("another nonce", response.body.signature)).toBe(false);
    expect(serverPublicKey().asymmetricKeyType).toBe("rsa");
  });

  it("keeps its key owner-only in DATA_DIR and signs with the same key every time", async () => {
    const first = await authSsh(device, fingerprint, "one");
    const second = await authSsh(device, fingerprint, "two");
    expect(isValidSignature("one", first.body.signature)).toBe(true);
    expect(isValidSignature("two", second.body.signature)).toBe(true);
    expect(statSync(path.join(inject("dataDir"), "signing.key")).mode & 0o777).toBe(0o600);
  });

  it("answers 404 for an unknown fingerprint, another namespace's key and a deleted key", async () => {
    const other = await seedNamespace();
    const foreign = await createKey(other);
    const doomed = await createKey(namespace);
    const deleted = await call("DELETE", `/api/sshkeys/public-keys/${doomed}`, { token: namespace.owner.tenantToken });
    expect(deleted.status).toBe(200);
    for (const unknown of ["00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff", foreign, doomed]) {
      const response = await authSsh(device, unknown, "nonce");
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
  });

  it("answers 404 when the key's filter does not admit the device", async () => {
    const hostnameElsewhere = await createKey(namespace, { hostname: "^db-" });
    const hostnameHere = await createKey(namespace, { hostname: "^web-[0-9]+$" });
    const tagged = await createKey(namespace, { tags: ["prod"] });
    expect((await authSsh(device, hostnameElsewhere, "nonce")).status).toBe(404);
    expect((await authSsh(device, hostnameHere, "nonce")).status).toBe(200);
    // The device has no tags.
    expect((await authSsh(device, tagged, "nonce")).status).toBe(404);
  });

  it("refuses a user's token, an API key and no credentials (401), even for a valid key", async () => {
    const body = { fingerprint, data: "nonce" };
    const apiKey = await seedApiKey(namespace, "owner");
    for (const credentials of [{ token: namespace.owner.tenantToken }, { apiKey }, {}]) {
      const response = await call("POST", authUrl, { ...credentials, body });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
  });
});
