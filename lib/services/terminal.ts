import { createHmac, randomBytes } from "node:crypto";
import { and, count, eq, gt, lt, sql } from "drizzle-orm";
import ssh2 from "ssh2";
import { devices } from "@/models/devices";
import { members } from "@/models/namespaces";
import { terminalTickets } from "@/models/terminal-tickets";
import type { Scope } from "../auth/credentials";
import { can } from "../auth/roles";
import { openWith, sealWith } from "../auth/secret-box";
import { hashToken } from "../auth/token-hash";
import type { Executor } from "../db";
import { notFound, tooManyRequests, ValidationError } from "../errors";
import { consumeRateLimit } from "./rate-limit";

export type TerminalCredential =
  | { password: string }
  | { privateKey: string }
  | { fingerprint: string; signature: string };

/** What a browser terminal token was issued for: this device, this local user, this session. */
export type TerminalTicket = {
  /** The console user who asked, in their namespace; null for a token asked for without credentials. */
  member: { userId: string; tenantId: string } | null;
  deviceUid: string;
  username: string;
  credential: TerminalCredential;
  sessionUid: string;
};

const ticketSeconds = 60;
// Tokens a user may hold unused at once: a page opens one per terminal. Without a user, as many
// per source address within a token's lifetime.
const maxPendingPerUser = 20;

// The credential's key comes from the token itself: the stored row alone opens to nothing.
const credentialKey = (token: string) => createHmac("sha256", token).update("terminal credential").digest();

function assertPrivateKey(text: string) {
  const parsed = ssh2.utils.parseKey(text);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error || key.getPrivatePEM() === null) {
    throw new ValidationError([
      { field: "private_key", message: "expected an unencrypted private key (OpenSSH or PEM)" },
    ]);
  }
}

type TerminalTokenInput = {
  device: string;
  username: string;
  password?: string;
  private_key?: string;
  fingerprint?: string;
  signature?: string;
};

function credentialOf(input: TerminalTokenInput): TerminalCredential {
  if (input.password !== undefined) return { password: input.password };
  if (input.private_key !== undefined) return { privateKey: input.private_key };
  return { fingerprint: input.fingerprint ?? "", signature: input.signature ?? "" };
}

/** A user's token: the device must be in their namespace, and their unused tokens are limited. */
async function assertMayAsk(db: Executor, scope: Scope, deviceUid: string) {
  const [device] = await db
    .select({ uid: devices.uid })
    .from(devices)
    .where(and(eq(devices.tenantId, scope.tenantId), eq(devices.uid, deviceUid)));
  if (!device) throw notFound("device");
  const [pending] = await db
    .select({ count: count() })
    .from(terminalTickets)
    .where(and(eq(terminalTickets.userId, scope.actorId), gt(terminalTickets.expiresAt, new Date())));
  if ((pending?.count ?? 0) >= maxPendingPerUser) throw tooManyRequests("too many unused terminal tokens");
}

/**
 * `POST /ws/ssh`: a one-time token for the browser terminal, bound to the device, the local user
 * and a session uid chosen now; it expires after 60 s. Any instance can take it (the ticket is in
 * the database), and the credential is stored sealed under the token. With a console user's
 * credentials (`scope`) the token is theirs; without (ShellHub's UI), the device login at the
 * upgrade is the only authentication, as at the SSH gateway: the device is not looked up now, so
 * an unknown uid answers like a known one, and tokens are counted per source address.
 */
export async function issueTerminalToken(db: Executor, scope: Scope | null, input: TerminalTokenInput, source: string) {
  if (input.private_key !== undefined) assertPrivateKey(input.private_key);
  if (scope) await assertMayAsk(db, scope, input.device);
  else await consumeRateLimit(db, `terminal-token:${source}`, maxPendingPerUser, ticketSeconds);
  const token = randomBytes(32).toString("base64url");
  const id = hashToken(token);
  await db.insert(terminalTickets).values({
    id,
    userId: scope?.actorId ?? null,
    tenantId: scope?.tenantId ?? null,
    deviceUid: input.device,
    username: input.username,
    sealedCredential: sealWith(credentialKey(token), JSON.stringify(credentialOf(input)), id),
    sessionUid: randomBytes(32).toString("hex"),
    expiresAt: new Date(Date.now() + ticketSeconds * 1000),
  });
  return { token };
}

/** The ticket of a token, once: a second use, or a use after it expired, finds nothing. */
export async function takeTerminalTicket(db: Executor, token: string): Promise<TerminalTicket | undefined> {
  const id = hashToken(token);
  const [row] = await db.delete(terminalTickets).where(eq(terminalTickets.id, id)).returning();
  if (!row || row.expiresAt.getTime() <= Date.now()) return undefined;
  return {
    member: row.userId && row.tenantId ? { userId: row.userId, tenantId: row.tenantId } : null,
    deviceUid: row.deviceUid,
    username: row.username,
    sessionUid: row.sessionUid,
    credential: JSON.parse(openWith(credentialKey(token), row.sealedCredential, id)),
  };
}

/**
 * The ticket of a token, once, when its user is still a member whose role may connect to
 * devices: a member removed or demoted since the token was issued gets nothing. A token asked
 * for without credentials has no member to check: the device login that follows decides.
 */
export async function redeemTerminalToken(db: Executor, token: string): Promise<TerminalTicket | undefined> {
  const ticket = await takeTerminalTicket(db, token);
  if (!ticket?.member) return ticket;
  const [member] = await db
    .select({ role: members.role })
    .from(members)
    .where(
      and(
        eq(members.tenantId, ticket.member.tenantId),
        eq(members.userId, ticket.member.userId),
        eq(members.status, "accepted"),
      ),
    );
  return member && can(member.role, "device.connect") ? ticket : undefined;
}

/** Tokens nobody used: removed with the other expired records (lib/timers.ts). */
export async function unscopedPurgeExpiredTerminalTickets(db: Executor) {
  await db.delete(terminalTickets).where(lt(terminalTickets.expiresAt, sql`now()`));
}
