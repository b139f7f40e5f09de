import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { call } from "@/testing/client";
import { seedNamespace } from "@/testing/seeds/namespaces";
import { seedUser } from "@/testing/seeds/users";
import type { Table } from "../support/bad-input";

const longText = (length: number) => "x".repeat(length);
const noChecks = async () => ({ credentials: {}, values: {}, verify: async () => {} });

export const tables: Record<string, () => Table> = {
  lookupInvitedUser: () => ({
    setup: async () => ({
      credentials: {},
      params: { tenant: randomUUID(), uid: randomUUID() },
      values: {},
      verify: async () => {},
    }),
    cases: [
      ["no query", () => ({ query: "" }), ["sig"]],
      ["an empty sig", () => ({ query: "sig=" }), ["sig"]],
      ["a 201-character sig", () => ({ query: `sig=${longText(201)}` }), ["sig"]],
    ],
  }),
  acceptInvitation: () => ({
    setup: async () => {
      const namespace = await seedNamespace();
      const user = await seedUser();
      return {
        credentials: { token: user.token },
        params: { tenant: namespace.tenantId },
        values: {},
        // Still no member.
        verify: async () => {
          expect((await call("GET", `/api/token/${namespace.tenantId}`, { token: user.token })).status).toBe(403);
        },
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["sig"]],
      ["an empty sig", () => ({ body: { sig: "" } }), ["sig"]],
      ["a numeric sig", () => ({ body: { sig: 12345 } }), ["sig"]],
    ],
  }),
  resendConfirmation: () => ({
    setup: noChecks,
    cases: [
      ["an empty body", () => ({ body: {} }), ["username"]],
      ["a 2-character username", () => ({ body: { username: "ab" } }), ["username"]],
      ["a 21-character username", () => ({ body: { username: longText(21) } }), ["username"]],
      ["a numeric username", () => ({ body: { username: 12345 } }), ["username"]],
    ],
  }),
  recoverPassword: () => ({
    setup: noChecks,
    cases: [
      ["an empty body", () => ({ body: {} }), ["username"]],
      [
        "both username and email",
        () => ({ body: { username: "someone", email: "someone@example.com" } }),
        ["username"],
      ],
      ["a username with a space", () => ({ body: { username: "some one" } }), ["username"]],
      ["a 31-character username", () => ({ body: { username: longText(31) } }), ["username"]],
      ["an email that is no address", () => ({ body: { email: "not-an-address" } }), ["email"]],
      ["a numeric email", () => ({ body: { email: 12345 } }), ["email"]],
    ],
  }),
  updatePasswordFromToken: () => ({
    setup: async () => {
      const user = await seedUser();
      return {
        credentials: {},
        params: { uid: user.id },
        values: {},
        // The password is unchanged.
        verify: async () => {
          const login = await call("POST", "/api/login", {
            body: { username: user.username, password: user.password },
          });
          expect(login.status).toBe(200);
        },
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["password", "token"]],
      ["a 4-character password", () => ({ body: { password: "abcd", token: "t" } }), ["password"]],
      ["a 31-character password", () => ({ body: { password: longText(31), token: "t" } }), ["password"]],
      ["a numeric token", () => ({ body: { password: "new-secret", token: 12345 } }), ["token"]],
      ["an empty token", () => ({ body: { password: "new-secret", token: "" } }), ["token"]],
    ],
  }),
  validateAccount: () => ({
    setup: noChecks,
    cases: [
      ["no query", () => ({ query: "" }), ["email", "token"]],
      ["an email that is no address", () => ({ query: "email=nobody&token=abc" }), ["email"]],
      ["an empty token", () => ({ query: "email=someone%40example.com&token=" }), ["token"]],
      ["a 201-character token", () => ({ query: `email=someone%40example.com&token=${longText(201)}` }), ["token"]],
    ],
  }),
};
