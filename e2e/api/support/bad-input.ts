import type { CallOptions } from "@/testing/client";

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
