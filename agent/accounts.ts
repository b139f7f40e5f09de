import { execFile, spawn } from "node:child_process";
import { timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { promisify } from "node:util";

/** A local account as getpwnam(3) gives it. */
export type LocalAccount = { name: string; uid: number; gid: number; home: string; shell: string };

/** POSIX-ish user names; never starting with "-", so a name can never pass for an option. */
const accountName = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,31}\$?$/;

export const isRoot = () => process.getuid?.() === 0;

/** One passwd(5) line. */
export function parsePasswdLine(line: string): LocalAccount | undefined {
  const [name, , uid, gid, , home, shell] = line.trim().split(":");
  if (!name || uid === undefined || gid === undefined || !/^\d+$/.test(uid) || !/^\d+$/.test(gid)) return undefined;
  return { name, uid: Number(uid), gid: Number(gid), home: home || "/", shell: shell || "/bin/sh" };
}

/** The account's line in a passwd(5) file, if any. */
export function passwdEntry(passwd: string, name: string): LocalAccount | undefined {
  const line = passwd.split("\n").find((entry) => entry.startsWith(`${name}:`));
  return line === undefined ? undefined : parsePasswdLine(line);
}

async function fromNameService(name: string): Promise<LocalAccount | undefined> {
  try {
    const { stdout } = await promisify(execFile)("getent", ["passwd", name], { timeout: 10_000 });
    const account = parsePasswdLine(stdout.split("\n")[0] ?? "");
    return account?.name === name ? account : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The account `name`: from /etc/passwd, else through the name service (getent, so LDAP and the
 * like count too; a process to start, so only when the file does not know the name). Running as
 * another user than root, only that user's own account exists for the agent.
 */
export async function findAccount(name: string): Promise<LocalAccount | undefined> {
  if (!accountName.test(name)) return undefined;
  if (!isRoot() && name !== userInfo().username) return undefined;
  const local = passwdEntry(await readFile("/etc/passwd", "utf8").catch(() => ""), name);
  return local ?? fromNameService(name);
}

/** The fields of a shadow(5) line that decide a login; days count from 1970-01-01. */
export type ShadowEntry = {
  hash: string;
  lastChange?: number;
  maxDays?: number;
  inactiveDays?: number;
  expiresOn?: number;
};

/** The line of `name` in shadow(5) text; undefined when there is none. Empty fields stay unset. */
export function shadowEntry(shadow: string, name: string): ShadowEntry | undefined {
  const day = (field?: string) => (field && /^\d+$/.test(field) ? Number(field) : undefined);
  for (const line of shadow.split("\n")) {
    const fields = line.split(":");
    if (fields[0] !== name) continue;
    return {
      hash: fields[1] ?? "",
      lastChange: day(fields[2]),
      maxDays: day(fields[4]),
      inactiveDays: day(fields[6]),
      expiresOn: day(fields[7]),
    };
  }
  return undefined;
}

const today = () => Math.floor(Date.now() / 86_400_000);

/**
 * Why shadow(5) bars the account from logging in on `day`, by the rules of pam_unix's account
 * check; undefined when nothing does. An expired account, or a password past its maximum age
 * and its inactivity period, bars every login. A password that must be changed first (changed
 * on day 0, or past its maximum age) bars password logins: there is no way to change it here.
 */
export function loginBar(entry: ShadowEntry, method: "password" | "publickey", day = today()): string | undefined {
  const { lastChange, maxDays, inactiveDays, expiresOn } = entry;
  if (expiresOn !== undefined && expiresOn > 0 && day >= expiresOn) return "the account has expired";
  if (lastChange === undefined || lastChange > day) return undefined;
  const isPastMaximum = lastChange === 0 || (maxDays !== undefined && day - lastChange > maxDays);
  if (
    lastChange > 0 &&
    maxDays !== undefined &&
    inactiveDays !== undefined &&
    day - lastChange > maxDays + inactiveDays
  ) {
    return "the password has expired and the account is inactive";
  }
  if (isPastMaximum && method === "password") return "the password has expired and must be changed";
  return undefined;
}

/** What shadow(5) says against a login of `name` (only root can read it); undefined when nothing. */
export async function accountLoginBar(
  name: string,
  method: "password" | "publickey",
  shadowFile = "/etc/shadow",
): Promise<string | undefined> {
  if (!isRoot()) return undefined;
  const entry = shadowEntry(await readFile(shadowFile, "utf8"), name);
  return entry && loginBar(entry, method);
}

/** Empty, locked ("!...") and disabled ("*", "x") entries admit no password. */
const isUsableHash = (hash: string) => /^\$[^$]+\$/.test(hash);

// A well-formed yescrypt setting: unknown users cost one hashing like known ones.
const dummySetting = "$y$j9T$7Zs1QdhqlDc1cVqMHYBdr/$";

/**
 * crypt(3) through Perl (perl-base is on every Debian; libxcrypt knows yescrypt, SHA-crypt,
 * bcrypt...). The setting and the password go on stdin, never on a command line.
 */
export function cryptHash(password: string, setting: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const perl = spawn(
      "perl",
      ["-e", 'local $/; my ($s, $p) = split /\\n/, <STDIN>, 2; my $h = crypt($p, $s); print defined $h ? $h : ""'],
      { stdio: ["pipe", "pipe", "ignore"], timeout: 10_000 },
    );
    const chunks: Buffer[] = [];
    perl.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    perl.once("error", reject);
    perl.once("close", (code) => {
      if (code === 0) resolve(Buffer.concat(chunks).toString());
      else reject(new Error(`crypt failed (perl exited with ${code})`));
    });
    perl.stdin.end(`${setting}\n${password}`);
  });
}

function sameText(a: string, b: string): boolean {
  const [left, right] = [Buffer.from(a), Buffer.from(b)];
  // Compared in constant time even when the lengths differ.
  return timingSafeEqual(left, left.length === right.length ? right : left) && left.length === right.length;
}

/**
 * Whether `password` is the local account's password, checked against /etc/shadow (so only
 * when running as root). Locked and password-less accounts never match.
 */
export async function checkPassword(name: string, password: string, shadowFile = "/etc/shadow"): Promise<boolean> {
  if (!isRoot() || password.includes("\0")) return false;
  const hash = accountName.test(name) ? shadowEntry(await readFile(shadowFile, "utf8"), name)?.hash : undefined;
  if (hash === undefined || !isUsableHash(hash)) {
    await cryptHash(password, dummySetting).catch(() => "");
    return false;
  }
  const computed = await cryptHash(password, hash);
  return isUsableHash(computed) && sameText(computed, hash);
}
