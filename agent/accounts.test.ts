import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkPassword,
  findAccount,
  isRoot,
  loginBar,
  parsePasswdLine,
  passwdEntry,
  type ShadowEntry,
  shadowEntry,
} from "./accounts";

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
    const shadow = "root:*:20228:0:99999:7:::\nalice:$y$j9T$salt$hash:20000:1:90:7:30:20500:\nbob::1::::::\n";
    expect(shadowEntry(shadow, "alice")).toEqual({
      hash: "$y$j9T$salt$hash",
      lastChange: 20000,
      maxDays: 90,
      inactiveDays: 30,
      expiresOn: 20500,
    });
    expect(shadowEntry(shadow, "bob")).toEqual({ hash: "", lastChange: 1 });
    expect(shadowEntry(shadow, "carol")).toBeUndefined();
  });
});

describe("shadow(5) account and password ageing", () => {
  const day = 20_000;
  const refusesPassword = "the password has expired and must be changed";
  const cases: [string, ShadowEntry, string | undefined, string | undefined][] = [
    // what, entry, bar for a password login, bar for a public-key login
    ["no ageing at all", { hash: "$6$x$" }, undefined, undefined],
    ["a usual Debian account", { hash: "$6$x$", lastChange: 19_000, maxDays: 99_999 }, undefined, undefined],
    ["expires tomorrow", { hash: "$6$x$", expiresOn: day + 1 }, undefined, undefined],
    ["expires today", { hash: "$6$x$", expiresOn: day }, "the account has expired", "the account has expired"],
    ["expired long ago", { hash: "$6$x$", expiresOn: 1 }, "the account has expired", "the account has expired"],
    ["expiry 0 means never", { hash: "$6$x$", expiresOn: 0 }, undefined, undefined],
    ["change forced (day 0)", { hash: "$6$x$", lastChange: 0 }, refusesPassword, undefined],
    ["changed in the future", { hash: "$6$x$", lastChange: day + 5, maxDays: 1 }, undefined, undefined],
    ["at its maximum age", { hash: "$6$x$", lastChange: day - 90, maxDays: 90 }, undefined, undefined],
    ["past its maximum age", { hash: "$6$x$", lastChange: day - 91, maxDays: 90 }, refusesPassword, undefined],
    [
      "past its maximum age, still in the inactivity period",
      { hash: "$6$x$", lastChange: day - 100, maxDays: 90, inactiveDays: 10 },
      refusesPassword,
      undefined,
    ],
    [
      "past its maximum age and the inactivity period",
      { hash: "$6$x$", lastChange: day - 101, maxDays: 90, inactiveDays: 10 },
      "the password has expired and the account is inactive",
      "the password has expired and the account is inactive",
    ],
  ];
  it.each(cases)("%s", (_what, entry, forPassword, forKey) => {
    expect(loginBar(entry, "password", day)).toBe(forPassword);
    expect(loginBar(entry, "publickey", day)).toBe(forKey);
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
