import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import ssh2 from "ssh2";
import { devices } from "@/models/devices";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";
import { notFound, ValidationError } from "../errors";

export type TerminalCredential = { password: string } | { privateKey: string };

/** What a browser terminal token was issued for: this user, this device, this session. */
export type TerminalTicket = {
  userId: string;
  tenantId: string;
  deviceUid: string;
  username: string;
  credential: TerminalCredential;
  sessionUid: string;
  expiresAt: number;
};

const ticketSeconds = 60;
const maxPendingTickets = 10_000;

const store = globalThis as typeof globalThis & { __dasTerminalTickets?: Map<string, TerminalTicket> };
const tickets = () => {
  store.__dasTerminalTickets ??= new Map();
  return store.__dasTerminalTickets;
};

function forgetExpired(now: number) {
  for (const [token, ticket] of tickets()) if (ticket.expiresAt <= now) tickets().delete(token);
}

function assertPrivateKey(text: string) {
  const parsed = ssh2.utils.parseKey(text);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error || key.getPrivatePEM() === null) {
    throw new ValidationError([
      { field: "private_key", message: "expected an unencrypted private key (OpenSSH or PEM)" },
    ]);
  }
}

/**
 * `POST /ws/ssh`: a one-time token for the browser terminal, bound to the calling user, the device
 * of their namespace and a session uid chosen now; it expires after 60 s. The credential is kept
 * with it in memory only, until the terminal connects.
 */
export async function issueTerminalToken(
  db: Executor,
  scope: Scope,
  input: { device: string; username: string; password?: string; private_key?: string },
) {
  if (input.private_key !== undefined) assertPrivateKey(input.private_key);
  const [device] = await db
    .select({ uid: devices.uid })
    .from(devices)
    .where(and(eq(devices.tenantId, scope.tenantId), eq(devices.uid, input.device)));
  if (!device) throw notFound("device");
  const now = Date.now();
  forgetExpired(now);
  if (tickets().size >= maxPendingTickets) throw new Error("too many pending terminal tokens");
  const token = randomBytes(32).toString("base64url");
  tickets().set(token, {
    userId: scope.actorId,
    tenantId: scope.tenantId,
    deviceUid: device.uid,
    username: input.username,
    credential: input.password !== undefined ? { password: input.password } : { privateKey: input.private_key ?? "" },
    sessionUid: randomBytes(32).toString("hex"),
    expiresAt: now + ticketSeconds * 1000,
  });
  return { token };
}

/** The ticket of a token, once: a second use, or a use after it expired, finds nothing. */
export function takeTerminalTicket(token: string): TerminalTicket | undefined {
  const ticket = tickets().get(token);
  tickets().delete(token);
  return ticket && ticket.expiresAt > Date.now() ? ticket : undefined;
}
