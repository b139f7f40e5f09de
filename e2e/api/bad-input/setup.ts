import { expect } from "vitest";
import { call } from "@/testing/client";
import type { Table } from "../support/bad-input";

const firstAccount = {
  name: "First Admin",
  username: "firstadmin",
  email: "first@example.com",
  password: "first-pass",
};

export const tables: Record<string, () => Table> = {
  // The shared test server is set up already: input is checked before that (and the sign) is.
  setup: () => ({
    setup: async () => ({
      credentials: {},
      query: "sign=x",
      values: {},
      verify: async () => {
        const login = await call("POST", "/api/login", {
          body: { username: firstAccount.username, password: firstAccount.password },
        });
        expect(login.status).toBe(401);
      },
    }),
    cases: [
      ["no sign", () => ({ query: "", body: firstAccount }), ["sign"]],
      ["an empty body", () => ({ body: {} }), ["email", "name", "password", "username"]],
      ["an email that is no address", () => ({ body: { ...firstAccount, email: "first" } }), ["email"]],
      ["a 4-character password", () => ({ body: { ...firstAccount, password: "abcd" } }), ["password"]],
      [
        "a username that is no namespace name, without a namespace",
        () => ({ body: { ...firstAccount, username: "first_admin" } }),
        ["namespace"],
      ],
      ["a namespace with a dot", () => ({ body: { ...firstAccount, namespace: "first.admin" } }), ["namespace"]],
    ],
  }),
};
