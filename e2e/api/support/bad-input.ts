import { expect } from "vitest";
import type { CallOptions } from "@/testing/client";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";

/** Shapes of the bad-input tables (e2e/api/bad-input.test.ts and e2e/api/bad-input/*.ts). */
export type Context = {
  credentials: Pick<CallOptions, "token" | "apiKey" | "headers">;
  params?: Record<string, string>;
  /** The query of the cases that give none (the generic body cases). */
  query?: string;
  /** Values the cases need (usernames, e-mails, key names...). */
  values: Record<string, string>;
  /** Throws when a refused request wrote anything. */
  verify: () => Promise<void>;
};
export type Input = { body?: unknown; rawBody?: string; query?: string };
/** The label, the request input, and the field names expected in the 400, or null for `{message}` only. */
export type Case = [label: string, input: (values: Record<string, string>) => Input, fields: string[] | null];
export type Table = { setup: () => Promise<Context>; cases: Case[] };

/** A table of reads in a new namespace of the owner's: the refusal itself is what is checked. */
export const readTable = (cases: Case[]) => (): Table => ({
  setup: async () => {
    const namespace = await seedNamespace();
    return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
  },
  cases,
});

/** A table of creates in a new namespace of the owner's: a refused one leaves `listOf(namespace)` empty. */
export const createTable = (listOf: (namespace: SeededNamespace) => Promise<unknown>, cases: Case[]) => (): Table => ({
  setup: async () => {
    const namespace = await seedNamespace();
    return {
      credentials: { token: namespace.owner.tenantToken },
      values: {},
      verify: async () => expect(await listOf(namespace)).toEqual([]),
    };
  },
  cases,
});
