import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "@/testing/cli";
import { call, uniqueName } from "@/testing/client";
import { type OwnServer, startOwnServer } from "@/testing/own-server";

/**
 * First run, on an empty server of this file's own: `/info` says whether an account exists,
 * the start message links to the setup page with the sign, and `POST /api/setup` creates the
 * first account and its namespace once.
 */

let server: OwnServer;
beforeAll(async () => {
  server = await startOwnServer({ LOG_LEVEL: "info", PUBLIC_URL: "https://devices.example.test" });
});
afterAll(() => server?.stop());

const api = (method: string, path: string, body?: unknown) => call(method, path, { baseUrl: server.url, body });

/** The setup link of the start message. */
function setupLink() {
  const line = server
    .output()
    .split("\n")
    .find((entry) => entry.includes("create the first one on the setup page"));
  expect(line, server.output()).toBeDefined();
  return new URL(JSON.parse(line ?? "{}").url);
}

const account = (username: string) => ({
  name: "First Admin",
  username,
  email: `${username}@example.com`,
  password: "first-pass",
});

describe("first-run setup", () => {
  it("refuses a missing or wrong sign, and a username that is no namespace name without one", async () => {
    expect((await api("GET", "/info")).body).toMatchObject({ setup: false });
    const link = setupLink();
    expect(link.origin + link.pathname).toBe("https://devices.example.test/setup");
    // On PostgreSQL the command works on the database itself, with its own configuration.
    const printed = await cli({ ...server.data, PUBLIC_URL: "https://devices.example.test" }, "setup", "link");
    expect(printed.stdout.trim(), printed.stderr).toBe(link.href);

    const unsigned = await api("POST", "/api/setup", account("nosign"));
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.fields).toEqual([expect.objectContaining({ field: "sign" })]);
    const wrong = await api("POST", "/api/setup?sign=not-the-sign", account("wrongsign"));
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ message: expect.stringMatching(/sign/) });
    const dotted = await api("POST", `/api/setup${link.search}`, account("first.admin"));
    expect(dotted.status).toBe(400);
    expect(dotted.body.fields).toEqual([expect.objectContaining({ field: "namespace" })]);
    expect((await api("GET", "/info")).body).toMatchObject({ setup: false });
  });

  it("creates the first account and its namespace once: of two concurrent calls one wins, later ones get 409", async () => {
    const { search } = setupLink();
    const [first, second] = [account(uniqueName("a")), account(uniqueName("b"))];
    const answers = await Promise.all([first, second].map((body) => api("POST", `/api/setup${search}`, body)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const loser = answers.find((answer) => answer.status === 409);
    expect(loser?.body).toEqual({ message: expect.stringMatching(/set up already/) });
    const winner = answers[0]?.status === 200 ? first : second;
    const other = winner === first ? second : first;

    expect((await api("GET", "/info")).body).toMatchObject({ setup: true });
    const login = await api("POST", "/api/login", { username: winner.username, password: winner.password });
    expect(login.status, login.text).toBe(200);
    expect((await api("POST", "/api/login", { username: other.username, password: other.password })).status).toBe(401);
    const namespaces = await call("GET", "/api/namespaces", { baseUrl: server.url, token: login.body.token });
    expect(namespaces.body).toEqual([expect.objectContaining({ name: winner.username })]);
    expect(namespaces.body[0].members).toEqual([expect.objectContaining({ role: "owner", id: login.body.id })]);

    const again = await api("POST", `/api/setup${search}`, { ...account(uniqueName("c")), namespace: "another-one" });
    expect(again.status).toBe(409);
    // On PostgreSQL the command works on the database itself, with its own configuration.
    const printed = await cli({ ...server.data, PUBLIC_URL: "https://devices.example.test" }, "setup", "link");
    expect(printed.code).toBe(1);
    expect(printed.stderr).toMatch(/set up already/);
  });
});
