import { describe, expect, it } from "vitest";
import { call } from "@/testing/client";
import { linkIn, type MailServer } from "@/testing/mail";
import { type OwnServer, withMailingServer } from "@/testing/own-server";
import { seedNamespace } from "@/testing/seeds/namespaces";
import { type SeededUser, seedUser } from "@/testing/seeds/users";

/**
 * Invitations as ShellHub's cloud edition has them, on a server of this file's own that mails
 * through a real SMTP server: an added member is pending until they accept the mailed link.
 * (Without mail delivery, or in the community edition, members are accepted at once:
 * e2e/api/members.test.ts.)
 */

let server: OwnServer;
let mail: MailServer;
withMailingServer(
  { PUBLIC_URL: "https://devices.example.test", REQUIRE_EMAIL_CONFIRMATION: "false" },
  (started, smtp) => {
    server = started;
    mail = smtp;
  },
);

const api = (method: string, path: string, options: { token?: string; body?: unknown } = {}) =>
  call(method, path, { ...options, baseUrl: server.url });

/** Invites `user` to a new namespace; returns the namespace and the link's query. */
async function invite(user: SeededUser) {
  const namespace = await seedNamespace(undefined, { baseUrl: server.url });
  const added = await api("POST", `/api/namespaces/${namespace.tenantId}/members`, {
    token: namespace.owner.tenantToken,
    body: { identifier: user.username, role: "operator" },
  });
  expect(added.status, added.text).toBe(200);
  expect(added.body.members).toContainEqual(expect.objectContaining({ id: user.id, status: "pending" }));
  const received = await mail.waitFor(
    user.email,
    (m) => m.subject === `You are invited to the namespace ${namespace.name}`,
  );
  const link = linkIn(received, "https://devices.example.test/accept-invite?");
  expect(link.searchParams.get("tenant-id")).toBe(namespace.tenantId);
  expect(link.searchParams.get("user-id")).toBe(user.id);
  return { namespace, sig: link.searchParams.get("sig") ?? "" };
}

const lookup = (tenantId: string, userId: string, sig: string) =>
  api("GET", `/api/namespaces/${tenantId}/members/${userId}/accept-invite?sig=${encodeURIComponent(sig)}`);
const accept = (tenantId: string, token: string, sig: string) =>
  api("PATCH", `/api/namespaces/${tenantId}/members/accept-invite`, { token, body: { sig } });

describe("invitations", () => {
  it("an invited member acts in the namespace only once they accept the mailed link", async () => {
    const user = await seedUser({}, { baseUrl: server.url });
    const { namespace, sig } = await invite(user);

    // Pending: the namespace is not theirs yet.
    expect((await api("GET", `/api/token/${namespace.tenantId}`, { token: user.token })).status).toBe(403);
    expect((await api("GET", "/api/namespaces", { token: user.token })).body).toEqual([]);

    expect((await lookup(namespace.tenantId, user.id, sig)).body).toEqual({ status: "confirmed" });
    const wrongSig = await lookup(namespace.tenantId, user.id, "not-the-sig");
    expect(wrongSig.status).toBe(403);
    expect(wrongSig.body).toEqual({ message: expect.stringMatching(/invitation/) });
    expect((await lookup(namespace.tenantId, namespace.owner.id, sig)).status).toBe(403);

    const stranger = await seedUser({}, { baseUrl: server.url });
    expect((await accept(namespace.tenantId, stranger.token, sig)).status).toBe(403);
    expect((await accept(namespace.tenantId, user.token, "not-the-sig")).status).toBe(403);
    const accepted = await accept(namespace.tenantId, user.token, sig);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toEqual({ message: expect.stringMatching(/accepted/) });

    const token = await api("GET", `/api/token/${namespace.tenantId}`, { token: user.token });
    expect(token.status, token.text).toBe(200);
    const read = await api("GET", `/api/namespaces/${namespace.tenantId}`, { token: token.body.token });
    expect(read.body.members).toContainEqual(
      expect.objectContaining({ id: user.id, role: "operator", status: "accepted" }),
    );
    // The link is used up; a second click on it changes nothing.
    expect((await lookup(namespace.tenantId, user.id, sig)).status).toBe(403);
    expect((await accept(namespace.tenantId, user.token, sig)).status).toBe(200);
    // The stranger's refused tries made them no member.
    expect((await api("GET", `/api/token/${namespace.tenantId}`, { token: stranger.token })).status).toBe(403);
  });

  it("a link's sig accepts only its own namespace's invitation; a cancelled invitation accepts nothing", async () => {
    const user = await seedUser({}, { baseUrl: server.url });
    const first = await invite(user);
    const second = await invite(user);
    expect((await accept(second.namespace.tenantId, user.token, first.sig)).status).toBe(403);

    const cancelled = await api("DELETE", `/api/namespaces/${second.namespace.tenantId}/members/${user.id}`, {
      token: second.namespace.owner.tenantToken,
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect((await lookup(second.namespace.tenantId, user.id, second.sig)).status).toBe(403);
    expect((await accept(second.namespace.tenantId, user.token, second.sig)).status).toBe(403);

    expect((await accept(first.namespace.tenantId, user.token, first.sig)).status).toBe(200);
  });
});
