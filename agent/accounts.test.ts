import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPassword, findAccount, isRoot, parsePasswdLine, passwdEntry, shadowHash } from "./accounts";

describe("passwd and shadow lines", () => {
  it("reads an account and a hash field", () => {
    expect(parsePasswdLine("alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n")).toEqual({
      name: "alice",
      uid: 1000,
      gid: 1000,
      home: "/home/alice",
      shell: "/bin/bash",
    });
    expect(parsePasswdLine("broken:x:abc:1:")).toBeUndefined();
    const passwd = "root:x:0:0:root:/root:/bin/bash\nal:x:1:1::/al:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/zsh\n";
    expect(passwdEntry(passwd, "alice")?.shell).toBe("/bin/zsh");
    expect(passwdEntry(passwd, "al")?.home).toBe("/al");
    expect(passwdEntry(passwd, "ali")).toBeUndefined();
    const shadow = "root:*:20228:0:99999:7:::\nalice:$y$j9T$salt$hash:20000::::::\nbob::1::::::\n";
    expect(shadowHash(shadow, "alice")).toBe("$y$j9T$salt$hash");
    expect(shadowHash(shadow, "bob")).toBe("");
    expect(shadowHash(shadow, "carol")).toBeUndefined();
  });
});

describe("local accounts", () => {
  it("finds an account through the name service and refuses names that are not names", async () => {
    const self = await findAccount(isRoot() ? "root" : (process.env.USER ?? ""));
    expect(self?.uid).toBe(process.getuid?.());
    expect(await findAccount("-h")).toBeUndefined();
    expect(await findAccount("../etc")).toBeUndefined();
    expect(await findAccount(`nobody-${randomBytes(3).toString("hex")}`)).toBeUndefined();
  });
});

describe.skipIf(!isRoot())("passwords (needs root: reads /etc/shadow and creates accounts)", () => {
  const suffix = randomBytes(3).toString("hex");
  const yescrypt = `agy${suffix}`;
  const sha512 = `ags${suffix}`;
  const password = "correct horse: battery\nstaple";

  beforeAll(() => {
    for (const name of [yescrypt, sha512]) execFileSync("useradd", ["--no-create-home", name]);
    execFileSync("chpasswd", { input: `${yescrypt}:${password.replace("\n", " ")}\n` });
    execFileSync("chpasswd", ["--crypt-method", "SHA512"], { input: `${sha512}:simple-pass\n` });
  });

  afterAll(() => {
    for (const name of [yescrypt, sha512]) execFileSync("userdel", [name], { stdio: "ignore" });
  });

  it("matches the account's yescrypt and SHA-512 hashes and nothing else", async () => {
    const spaced = password.replace("\n", " ");
    expect(execFileSync("getent", ["shadow", yescrypt], { encoding: "utf8" })).toContain(":$y$");
    expect(await checkPassword(yescrypt, spaced)).toBe(true);
    expect(await checkPassword(yescrypt, `${spaced} `)).toBe(false);
    expect(await checkPassword(yescrypt, "")).toBe(false);
    expect(await checkPassword(sha512, "simple-pass")).toBe(true);
    expect(await checkPassword(sha512, "simple-pasS")).toBe(false);
    expect(await checkPassword(yescrypt, "simple-pass")).toBe(false);
  });

  it("never matches a locked or unknown account", async () => {
    execFileSync("usermod", ["--lock", sha512]);
    expect(await checkPassword(sha512, "simple-pass")).toBe(false);
    execFileSync("usermod", ["--unlock", sha512]);
    expect(await checkPassword(sha512, "simple-pass")).toBe(true);
    expect(await checkPassword("root", "")).toBe(false);
    expect(await checkPassword(`none${suffix}`, "simple-pass")).toBe(false);
  });
});

describe.skipIf(isRoot())("passwords when not running as root", () => {
  it("are refused", async () => {
    expect(await checkPassword(process.env.USER ?? "", "anything")).toBe(false);
  });
});
