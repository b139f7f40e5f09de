import ssh2, { type ParsedKey } from "ssh2";
import { describe, expect, it } from "vitest";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import { base64Of, browserSigningKey, randomEd25519Line } from "@/testing/ssh-keys";
import type { Db } from "../db";
import { getNamespace, setSessionRecord } from "./namespaces";
import { createPublicKey } from "./public-keys";
import { assertKeyAdmitted, keyProvenBySignature, parseTarget, Refusal, unscopedFindTargetDevice } from "./ssh-access";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

describe("parseTarget", () => {
  const uid = "a".repeat(64);
  it.each([
    ["root@lab.web-01", { user: "root", namespace: "lab", device: "web-01" }],
    ["root@LAB.Web-01", { user: "root", namespace: "lab", device: "web-01" }],
    [`pi@${uid}`, { user: "pi", device: uid }],
    ["user@name@lab.pc", { user: "user@name", namespace: "lab", device: "pc" }],
  ])("reads %s", (login, expected) => {
    expect(parseTarget(login)).toEqual({ login, ...expected });
  });

  it.each([
    ["no device", "root"],
    ["no user", "@lab.pc"],
    ["no namespace", "root@pc"],
    ["three labels", "root@a.b.c"],
    ["a label with a space", "root@lab.my pc"],
    ["a leading hyphen", "root@lab.-pc"],
    ["a uid of 63 hex characters", `root@${"a".repeat(63)}`],
  ])("refuses %s", (_label, login) => {
    expect(parseTarget(login)).toBeUndefined();
  });
});

/** The refusal's reason, or "admitted". */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => "admitted",
    (error: unknown) => (error instanceof Refusal ? error.message : Promise.reject(error)),
  );

describe("unscopedFindTargetDevice", () => {
  async function seedDevice(status: "accepted" | "pending" = "accepted") {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId, status);
    const { name: namespace } = await getNamespace(db, scope);
    return { scope, uid, namespace, name: `dev-${uid.slice(0, 12)}` };
  }

  it("finds an accepted device by namespace and name, or by uid, with its namespace's settings", async () => {
    const { scope, uid, namespace, name } = await seedDevice();
    await setSessionRecord(db, scope, true);
    const byName = await unscopedFindTargetDevice(db, { login: "", user: "root", namespace, device: name });
    expect(byName).toMatchObject({ uid, tenantId: scope.tenantId, name, isRecorded: true, announcement: "" });
    expect(await unscopedFindTargetDevice(db, { login: "", user: "root", device: uid })).toEqual(byName);
  });

  it("refuses an unknown device, one that is not accepted, and a uid outside the confining namespace", async () => {
    const pending = await seedDevice("pending");
    const other = await seedDevice();
    const find = (target: { namespace?: string; device: string; tenantId?: string }) =>
      outcome(unscopedFindTargetDevice(db, { login: "", user: "root", ...target }));
    expect(await find({ namespace: pending.namespace, device: "nothing" })).toBe("unknown namespace or device");
    expect(await find({ device: pending.uid })).toBe("the device is pending");
    expect(await find({ device: other.uid, tenantId: pending.scope.tenantId })).toBe("unknown namespace or device");
  });
});

describe("assertKeyAdmitted", () => {
  const parsed = (line: string) => ssh2.utils.parseKey(line) as ParsedKey;

  it("admits a key of the namespace whose filter and username pattern match", async () => {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId, "accepted");
    const device = await unscopedFindTargetDevice(db, { login: "", user: "root", device: uid });
    const rules = [
      { filter: { hostname: "^dev-" }, username: "^root$" },
      { filter: { hostname: "^web-" }, username: ".*" },
      { filter: { tags: ["prod"] }, username: ".*" },
      { filter: { hostname: ".*" }, username: "^admin$" },
    ];
    const lines = rules.map(() => randomEd25519Line());
    for (const [index, rule] of rules.entries()) {
      await createPublicKey(db, scope, { name: `key${index}`, data: base64Of(lines[index] ?? ""), ...rule });
    }
    const check = (index: number) => outcome(assertKeyAdmitted(db, device, "root", parsed(lines[index] ?? "")));
    expect(await check(0)).toBe("admitted");
    expect(await check(1)).toBe("the key's filter does not admit the device");
    expect(await check(2)).toBe("the key's filter does not admit the device");
    expect(await check(3)).toBe("the key's username pattern does not match");
    expect(await outcome(assertKeyAdmitted(db, device, "root", parsed(randomEd25519Line())))).toBe(
      "the key is not a key of the namespace",
    );
  });
});

describe("keyProvenBySignature", () => {
  async function deviceWithKeys() {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId, "accepted");
    const device = await unscopedFindTargetDevice(db, { login: "", user: "root", device: uid });
    const keys = { ed25519: browserSigningKey("ed25519"), rsa: browserSigningKey("rsa") };
    for (const [name, key] of Object.entries(keys)) {
      await createPublicKey(db, scope, { name, data: key.data, filter: { hostname: ".*" }, username: ".*" });
    }
    return { device, keys };
  }

  it("gives the namespace's key whose private key signed the user name, RSA (SHA-1) or ed25519", async () => {
    const { device, keys } = await deviceWithKeys();
    for (const key of Object.values(keys)) {
      const proven = await keyProvenBySignature(db, device, "root", {
        fingerprint: key.fingerprint,
        signature: key.signUserName("root"),
      });
      expect(proven.getPublicSSH().toString("base64")).toBe(key.line.split(" ")[1]);
    }
  });

  it("refuses a signature of another name, a signature by another key, and an unknown fingerprint", async () => {
    const { device, keys } = await deviceWithKeys();
    const check = (fingerprint: string, signature: string) =>
      outcome(keyProvenBySignature(db, device, "root", { fingerprint, signature }));
    const notVerified = "the signature of the user name does not verify";
    expect(await check(keys.rsa.fingerprint, keys.rsa.signUserName("admin"))).toBe(notVerified);
    expect(await check(keys.ed25519.fingerprint, keys.ed25519.signUserName("root "))).toBe(notVerified);
    expect(await check(keys.ed25519.fingerprint, keys.rsa.signUserName("root"))).toBe(notVerified);
    expect(await check(keys.ed25519.fingerprint, "AAAA")).toBe(notVerified);
    const stranger = browserSigningKey("ed25519");
    expect(await check(stranger.fingerprint, stranger.signUserName("root"))).toBe(
      "the fingerprint is not a key of the namespace",
    );
  });

  it("does not take a key of another namespace", async () => {
    const { keys } = await deviceWithKeys();
    const elsewhere = await deviceWithKeys();
    const key = keys.ed25519;
    const proof = { fingerprint: key.fingerprint, signature: key.signUserName("root") };
    expect(await outcome(keyProvenBySignature(db, elsewhere.device, "root", proof))).toBe(
      "the fingerprint is not a key of the namespace",
    );
  });
});
