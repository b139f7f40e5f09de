import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { terminalTickets } from "@/models/terminal-tickets";
import { randomUid } from "@/testing/client";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Scope } from "../auth/credentials";
import type { Db } from "../db";
import { unscopedAddMember, unscopedRemoveMember, updateMember } from "./members";
import {
  issueTerminalToken,
  redeemTerminalToken,
  takeTerminalTicket,
  unscopedPurgeExpiredTerminalTickets,
} from "./terminal";

const source = "192.0.2.1";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

async function seedDevice() {
  const scope = await seedScope(db);
  return { scope, device: await insertDevice(db, scope.tenantId, "accepted") };
}

describe("browser terminal tickets", () => {
  it("are taken once, by any instance, with the credential they were issued with", async () => {
    const { scope, device } = await seedDevice();
    const { token } = await issueTerminalToken(db, scope, { device, username: "alice", password: "pa55 word" }, source);
    const ticket = await takeTerminalTicket(db, token);
    expect(ticket).toMatchObject({
      member: { userId: scope.actorId, tenantId: scope.tenantId },
      deviceUid: device,
      username: "alice",
      credential: { password: "pa55 word" },
      sessionUid: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await takeTerminalTicket(db, token)).toBeUndefined();
  });

  it("store the token's hash and the credential sealed under the token: the row alone reveals neither", async () => {
    const { scope, device } = await seedDevice();
    const password = `secret-${randomUid().slice(0, 8)}`;
    const { token } = await issueTerminalToken(db, scope, { device, username: "bob", password }, source);
    const rows = await db.select().from(terminalTickets).where(eq(terminalTickets.userId, scope.actorId));
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(password);
    expect(text).not.toContain(token);
    // Another token finds nothing, even when pointed at the row by its id.
    expect(await takeTerminalTicket(db, `${token}x`)).toBeUndefined();
    expect(await takeTerminalTicket(db, token)).toMatchObject({ credential: { password } });
  });

  it("expire after a minute", async () => {
    const { scope, device } = await seedDevice();
    const { token } = await issueTerminalToken(db, scope, { device, username: "carol", password: "x" }, source);
    await db
      .update(terminalTickets)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(terminalTickets.userId, scope.actorId));
    expect(await takeTerminalTicket(db, token)).toBeUndefined();
  });

  it("that expired unused are purged, and count no more against the user's limit", async () => {
    const { scope, device } = await seedDevice();
    const issue = () => issueTerminalToken(db, scope, { device, username: "frank", password: "x" }, source);
    for (let index = 0; index < 20; index++) await issue();
    await expect(issue()).rejects.toMatchObject({ status: 429 });
    const ofUser = eq(terminalTickets.userId, scope.actorId);
    await db
      .update(terminalTickets)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(ofUser);
    expect((await issue()).token).toEqual(expect.any(String));
    await unscopedPurgeExpiredTerminalTickets(db);
    expect(await db.select().from(terminalTickets).where(ofUser)).toHaveLength(1);
  });

  it("are limited per user while unused, and the limit frees up as they are used", async () => {
    const { scope, device } = await seedDevice();
    const issue = () => issueTerminalToken(db, scope, { device, username: "dave", password: "x" }, source);
    const tokens = [];
    for (let index = 0; index < 20; index++) tokens.push((await issue()).token);
    await expect(issue()).rejects.toMatchObject({ status: 429 });
    await takeTerminalTicket(db, tokens[0] ?? "");
    expect((await issue()).token).toEqual(expect.any(String));
  });

  it("are issued only for a device of the caller's namespace", async () => {
    const { scope } = await seedDevice();
    const elsewhere = await seedDevice();
    await expect(
      issueTerminalToken(db, scope, { device: elsewhere.device, username: "eve", password: "x" }, source),
    ).rejects.toMatchObject({ status: 404 });
  });
});

describe("redeeming a browser terminal token", () => {
  /** An operator of a namespace with an accepted device, and a token issued to the operator. */
  async function operatorToken() {
    const { scope: owner, device } = await seedDevice();
    const { actorId } = await seedScope(db);
    await unscopedAddMember(db, owner.tenantId, actorId, "operator");
    const operator = { tenantId: owner.tenantId, role: "operator", actorId, via: "jwt" } as Scope;
    const { token } = await issueTerminalToken(db, operator, { device, username: "grace", password: "x" }, source);
    return { owner, actorId, token };
  }

  it("gives the ticket, once, to a member whose role may connect", async () => {
    const { actorId, token } = await operatorToken();
    expect(await redeemTerminalToken(db, token)).toMatchObject({ member: { userId: actorId }, username: "grace" });
    expect(await redeemTerminalToken(db, token)).toBeUndefined();
  });

  it("gives nothing to a member demoted to a role that may not connect, and spends the token", async () => {
    const { owner, actorId, token } = await operatorToken();
    await updateMember(db, owner, actorId, "observer");
    expect(await redeemTerminalToken(db, token)).toBeUndefined();
    expect(await takeTerminalTicket(db, token)).toBeUndefined();
  });

  it("gives nothing to a user who left the namespace", async () => {
    const { owner, actorId, token } = await operatorToken();
    await unscopedRemoveMember(db, owner.tenantId, actorId);
    expect(await redeemTerminalToken(db, token)).toBeUndefined();
  });
});

describe("browser terminal tickets asked for without credentials (ShellHub's UI)", () => {
  /** A source address of its own per test (an IPv6 one in 2001:db8::/32): the limit is counted per source. */
  const newSource = () => `2001:db8::${randomUid().slice(0, 4)}:${randomUid().slice(0, 4)}`;

  it("belong to nobody, name any device uid unchecked, and are redeemed without a member check", async () => {
    const unknownDevice = randomUid();
    const input = { device: unknownDevice, username: "root", fingerprint: `${"aa:".repeat(15)}aa`, signature: "c2ln" };
    const { token } = await issueTerminalToken(db, null, input, newSource());
    expect(await redeemTerminalToken(db, token)).toMatchObject({
      member: null,
      deviceUid: unknownDevice,
      username: "root",
      credential: { fingerprint: input.fingerprint, signature: "c2ln" },
    });
    expect(await redeemTerminalToken(db, token)).toBeUndefined();
  });

  it("are limited to 20 a minute per source address", async () => {
    const { device } = await seedDevice();
    const from = newSource();
    const issue = (at: string) => issueTerminalToken(db, null, { device, username: "root", password: "x" }, at);
    for (let index = 0; index < 20; index++) await issue(from);
    await expect(issue(from)).rejects.toMatchObject({ status: 429 });
    expect((await issue(newSource())).token).toEqual(expect.any(String));
  });
});
