import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { call } from "@/testing/client";
import { enableMfaFor } from "@/testing/mfa";
import { seedUser } from "@/testing/seeds/users";
import type { Case, Table } from "../support/bad-input";

const longText = (length: number) => "x".repeat(length);
const noChecks = async () => ({ credentials: {}, values: {}, verify: async () => {} });

async function mfaOf(token: string) {
  const response = await call("GET", "/api/auth/user", { token });
  if (response.status !== 200) throw new Error(`GET /api/auth/user: ${response.status} ${response.text}`);
  return response.body.mfa as boolean;
}

const authCases: Case[] = [
  ["an empty body", () => ({ body: {} }), ["code", "token"]],
  ["a token that is not a uuid", () => ({ body: { token: "abc", code: "123456" } }), ["token"]],
  ["a 5-digit code", () => ({ body: { token: randomUUID(), code: "12345" } }), ["code"]],
  ["a code with letters", () => ({ body: { token: randomUUID(), code: "12345a" } }), ["code"]],
  ["a numeric code", () => ({ body: { token: randomUUID(), code: 123456 } }), ["code"]],
];

export const tables: Record<string, () => Table> = {
  authMfa: () => ({ setup: noChecks, cases: authCases }),
  authMfaAlias: () => ({ setup: noChecks, cases: authCases }),
  recoverMfa: () => ({
    setup: noChecks,
    cases: [
      ["an empty body", () => ({ body: {} }), ["identifier", "recovery_code"]],
      ["a 2-character identifier", () => ({ body: { identifier: "ab", recovery_code: "ABCDEFGHJK" } }), ["identifier"]],
      ["an empty recovery code", () => ({ body: { identifier: "someone", recovery_code: "" } }), ["recovery_code"]],
      [
        "a 65-character recovery code",
        () => ({ body: { identifier: "someone", recovery_code: longText(65) } }),
        ["recovery_code"],
      ],
    ],
  }),
  requestMfaReset: () => ({
    setup: noChecks,
    cases: [
      ["an empty body", () => ({ body: {} }), ["identifier"]],
      ["a numeric identifier", () => ({ body: { identifier: 12345 } }), ["identifier"]],
      ["a 255-character identifier", () => ({ body: { identifier: longText(255) } }), ["identifier"]],
    ],
  }),
  enableMfa: () => ({
    setup: async () => {
      const user = await seedUser();
      return {
        credentials: { token: user.token },
        values: {},
        verify: async () => expect(await mfaOf(user.token)).toBe(false),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["code", "recovery_codes", "secret"]],
      ["a 5-digit code", () => ({ body: { code: "12345", secret: "S", recovery_codes: ["A"] } }), ["code"]],
      ["an empty secret", () => ({ body: { code: "123456", secret: "", recovery_codes: ["A"] } }), ["secret"]],
      [
        "recovery codes as a string",
        () => ({ body: { code: "123456", secret: "S", recovery_codes: "A" } }),
        ["recovery_codes"],
      ],
      ["no recovery codes", () => ({ body: { code: "123456", secret: "S", recovery_codes: [] } }), ["recovery_codes"]],
      [
        "a numeric recovery code",
        () => ({ body: { code: "123456", secret: "S", recovery_codes: ["A", 5] } }),
        ["recovery_codes.1"],
      ],
    ],
  }),
  disableMfa: () => ({
    setup: async () => {
      const user = await seedUser();
      await enableMfaFor(user.token, user.email);
      return {
        credentials: { token: user.token },
        values: {},
        verify: async () => expect(await mfaOf(user.token)).toBe(true),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["code"]],
      ["both code and recovery code", () => ({ body: { code: "123456", recovery_code: "ABCDEFGHJK" } }), ["code"]],
      ["a code with letters", () => ({ body: { code: "abcdef" } }), ["code"]],
      ["an empty recovery code", () => ({ body: { recovery_code: "" } }), ["recovery_code"]],
    ],
  }),
  resetMfa: () => ({
    setup: async () => {
      const user = await seedUser();
      return { credentials: {}, params: { "user-id": user.id }, values: {}, verify: async () => {} };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["main_email_code", "recovery_email_code"]],
      [
        "a numeric main code",
        () => ({ body: { main_email_code: 5, recovery_email_code: "ABCDEFGHJK" } }),
        ["main_email_code"],
      ],
      [
        "an empty recovery code",
        () => ({ body: { main_email_code: "ABCDEFGHJK", recovery_email_code: "" } }),
        ["recovery_email_code"],
      ],
    ],
  }),
};
