import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { authDeviceBody, readAuthDeviceBody } from "./agent";

const publicKey = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString();
const info = { id: "debian", pretty_name: "Debian GNU/Linux 12", version: "0.1.0", arch: "x86_64", platform: "native" };
const good = {
  info,
  sessions: ["a".repeat(64)],
  hostname: "lab-router-7",
  identity: { mac: "02:ab:CD:00:11:22" },
  public_key: publicKey,
  tenant_id: "3f2b8c1e-5a4d-4e6f-9a7b-1c2d3e4f5a6b",
  proof: { timestamp: 1_795_000_000, signature: "c2lnbmF0dXJl" },
};

/** Replaces (or, with undefined, removes) one field of the good body. */
function withField(path: string[], value: unknown): Record<string, unknown> {
  const body = structuredClone(good) as Record<string, unknown>;
  let target = body;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = path.at(-1) ?? "";
  if (value === undefined) delete target[last];
  else target[last] = value;
  return body;
}

const notStrings = [null, 1, true, [], {}];

/** Values to try in each field: for each, both validators must agree. */
const trials: Record<string, unknown[]> = {
  info: [undefined, ...notStrings, { ...info, extra: "x" }, { ...info, id: 1 }],
  "info.id": [undefined, ...notStrings, "", "x".repeat(255), "x".repeat(256)],
  "info.pretty_name": [undefined, 7, "x".repeat(256), "ünïcode"],
  "info.version": [undefined, null, "x".repeat(255)],
  "info.arch": [undefined, ["x86_64"], ""],
  "info.platform": [undefined, false, "x".repeat(256)],
  sessions: [
    undefined,
    null,
    "a".repeat(64),
    {},
    [],
    ["A".repeat(64)],
    ["a".repeat(63)],
    ["a".repeat(65)],
    ["g".repeat(64)],
    [1],
    [null],
    Array(256).fill("b".repeat(64)),
    Array(257).fill("b".repeat(64)),
  ],
  hostname: [
    undefined,
    ...notStrings,
    "",
    "a",
    "A9",
    "a-b",
    "-ab",
    "ab-",
    "a_b",
    "a.b",
    "a b",
    "x".repeat(63),
    "x".repeat(64),
    "ab\n",
  ],
  identity: [undefined, ...notStrings, { mac: "" }, { mac: "02-00-00-00-00-01" }, { other: "x" }],
  "identity.mac": [
    undefined,
    ...notStrings,
    "",
    "02:00:00:00:00:01",
    "02:00:00:00:00",
    "02:00:00:00:00:01:02",
    "0g:00:00:00:00:01",
    "02:00-00:00:00:01",
    "0200.0000.0001",
    "02:00:00:00:00:01\n",
  ],
  public_key: [
    undefined,
    ...notStrings,
    "",
    "ssh-rsa AAAA",
    "-----BEGIN PUBLIC KEY-----\nAAAAAAAA\n-----END PUBLIC KEY-----\n",
    "-----BEGIN RSA PUBLIC KEY-----\r\nAAAA\r\n-----END RSA PUBLIC KEY-----",
    "-----BEGIN PUBLIC KEY-----AAAA-----END PUBLIC KEY-----",
    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
    `  ${publicKey}`,
    `${publicKey}\n\n`,
    `-----BEGIN PUBLIC KEY-----\n${"A".repeat(16_384)}\n-----END PUBLIC KEY-----`,
  ],
  tenant_id: [
    undefined,
    ...notStrings,
    "",
    "tenant",
    "3F2B8C1E-5A4D-4E6F-9A7B-1C2D3E4F5A6B",
    "3f2b8c1e-5a4d-0e6f-9a7b-1c2d3e4f5a6b",
    "3f2b8c1e-5a4d-4e6f-7a7b-1c2d3e4f5a6b",
    "3f2b8c1e5a4d4e6f9a7b1c2d3e4f5a6b",
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "{3f2b8c1e-5a4d-4e6f-9a7b-1c2d3e4f5a6b}",
  ],
  proof: [undefined, ...notStrings, { timestamp: 1 }, { signature: "AAAA" }, { ...good.proof, extra: 1 }],
  "proof.timestamp": [undefined, ...notStrings, -1, 0, 1.5, 2 ** 32, 2 ** 32 + 1, "1795000000", Number.NaN],
  "proof.signature": [
    undefined,
    ...notStrings,
    "",
    "A",
    "AAAA==",
    "AAAA===",
    "AA AA",
    "AA-_",
    "A".repeat(1024),
    "A".repeat(1025),
  ],
};

const bodies: [string, unknown][] = [
  ["the good body", good],
  ["no body", undefined],
  ["null", null],
  ["an array", [good]],
  ["a string", JSON.stringify(good)],
  ["an extra field", { ...good, extra: true }],
  ["neither hostname nor MAC", withField(["identity", "mac"], "")],
  ["no hostname, no identity", { ...withField(["hostname"], ""), identity: undefined }],
  ["no hostname, but a MAC", withField(["hostname"], "")],
  ["no hostname and another bad field", { ...withField(["hostname"], ""), identity: { mac: "" }, tenant_id: 1 }],
];
for (const [field, values] of Object.entries(trials)) {
  for (const value of values)
    bodies.push([`${field} = ${JSON.stringify(value)?.slice(0, 40)}`, withField(field.split("."), value)]);
}

describe("the hand-written check of the agent body", () => {
  it.each(bodies)("agrees with the zod schema on %s", (_label, body) => {
    const parsed = authDeviceBody.safeParse(body);
    const read = readAuthDeviceBody(body);
    if (parsed.success) expect(read).toEqual(parsed.data);
    else expect(read).toBeUndefined();
  });

  it("is tried on bodies zod both accepts and refuses", () => {
    const outcomes = bodies.map(([, body]) => authDeviceBody.safeParse(body).success);
    expect(outcomes.filter(Boolean).length).toBeGreaterThan(20);
    expect(outcomes.filter((isAccepted) => !isAccepted).length).toBeGreaterThan(60);
  });
});
