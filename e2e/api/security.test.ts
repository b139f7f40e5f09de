import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { beforeAll, describe, expect, inject, it, vi } from "vitest";
import { chunkedSender } from "@/testing/chunked-sender";
import { call, uniqueName } from "@/testing/client";
import { seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { seedUser } from "@/testing/seeds/users";
import { root } from "@/testing/server";

const run = promisify(execFile);

/** The server's HS256 key: DATA_DIR/jwt.key (no JWT_SECRET is set for the test server). */
let serverKey: Uint8Array;

beforeAll(async () => {
  // The key is created with the first token: make sure one was handed out.
  await seedUser();
  serverKey = new TextEncoder().encode(readFileSync(path.join(inject("dataDir"), "jwt.key"), "utf8").trim());
});

type Claims = { sub: string; tenant: string; typ?: unknown; exp?: number };

/** A token shaped like the server's, signed with `key` (the server's unless told). */
function sign(claims: Claims, options: { key?: Uint8Array; alg?: string } = {}) {
  const { sub, exp, ...rest } = claims;
  const jwt = new SignJWT({ typ: "user", ...rest })
    .setProtectedHeader({ alg: options.alg ?? "HS256" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(exp ?? Math.floor(Date.now() / 1000) + 3600);
  return jwt.sign(options.key ?? serverKey);
}

const me = (token: string) => call("GET", "/api/auth/user", { token });

type RawAnswer = { status: number | string; text: string; connection?: string };

/** One request through `agent`; a failure or a 3 s silence is an answer too (status "error"/"timeout"). */
function rawRequest(agent: http.Agent, method: string, target: string, write: (request: http.ClientRequest) => void) {
  const url = new URL(`${inject("baseUrl")}${target}`);
  return new Promise<RawAnswer>((resolve) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        agent,
        headers: { "content-type": "application/json" },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, text, connection: response.headers.connection }),
        );
      },
    );
    request.setTimeout(3000, () => {
      resolve({ status: "timeout", text: "" });
      request.destroy();
    });
    // The server may answer and close before the whole body is written: the answer has come by then.
    request.on("error", (error) => resolve({ status: "error", text: String(error) }));
    write(request);
  });
}

const get = (agent: http.Agent, target: string) => rawRequest(agent, "GET", target, (request) => request.end());

/** A login body of `size` bytes sent chunked (no content-length). */
const postChunked = (agent: http.Agent, size: number) =>
  rawRequest(agent, "POST", "/api/login", (request) => {
    const chunk = "a".repeat(64 * 1024);
    request.write('{"username":"someone","password":"');
    for (let sent = 0; sent < size; sent += chunk.length) request.write(chunk);
    request.end('"}');
  });

const postWithLength = (agent: http.Agent, body: string) =>
  rawRequest(agent, "POST", "/api/login", (request) => {
    request.setHeader("content-length", Buffer.byteLength(body));
    request.end(body);
  });

/** The admin CLI, as an operator runs it next to the server of this test run. */
async function cli(...args: string[]) {
  const databaseUrl = inject("databaseUrl");
  return run(path.join(root, "node_modules/.bin/tsx"), ["lib/cli/main.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: inject("dataDir"), DATABASE_URL: databaseUrl || "", LOG_LEVEL: "warn" },
  });
}

describe("JWT verification", () => {
  it("accepts a token signed like the server's (control for the cases below)", async () => {
    const user = await seedUser();
    const response = await me(await sign({ sub: user.id, tenant: "" }));
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(user.id);
  });

  it("refuses alg 'none'", async () => {
    const user = await seedUser();
    const unsigned = new UnsecuredJWT({ tenant: "", typ: "user" })
      .setSubject(user.id)
      .setIssuedAt()
      .setExpirationTime("1h")
      .encode();
    for (const token of [unsigned, `${unsigned}${Buffer.from("x").toString("base64url")}`]) {
      const response = await me(token);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
  });

  it("refuses HS256 with another secret, HS512 with the right one, and RS256", async () => {
    const user = await seedUser();
    const otherSecret = new TextEncoder().encode("another-secret-that-is-long-enough-for-hs256");
    const { privateKey } = await generateKeyPair("RS256");
    const rs256 = await new SignJWT({ tenant: "", typ: "user" })
      .setProtectedHeader({ alg: "RS256" })
      .setSubject(user.id)
      .setExpirationTime("1h")
      .sign(privateKey);
    const tokens = [
      await sign({ sub: user.id, tenant: "" }, { key: otherSecret }),
      await sign({ sub: user.id, tenant: "" }, { alg: "HS512" }),
      rs256,
    ];
    for (const token of tokens) {
      const response = await me(token);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
  });

  it("refuses an expired token", async () => {
    const user = await seedUser();
    const expired = await sign({ sub: user.id, tenant: "", exp: Math.floor(Date.now() / 1000) - 60 });
    const response = await me(expired);
    expect(response.status).toBe(401);
    expect(response.body.message).toMatch(/expired|invalid/);
  });

  it("refuses tokens of the wrong shape even when signed with the server's key", async () => {
    const user = await seedUser();
    const cases = [
      await sign({ sub: user.id, tenant: "", typ: "device" }),
      await sign({ sub: user.id, tenant: "", typ: undefined }),
      await new SignJWT({ typ: "user" })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject(user.id)
        .setExpirationTime("1h")
        .sign(serverKey),
      await new SignJWT({ typ: "user", tenant: "" })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject(user.id)
        .sign(serverKey),
    ];
    for (const token of cases) expect((await me(token)).status).toBe(401);
  });

  it("refuses a well-signed token for a user id that does not exist with 401", async () => {
    const response = await me(await sign({ sub: "00000000-0000-4000-8000-000000000000", tenant: "" }));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: expect.any(String) });
  });

  it("refuses a well-signed token whose subject is not a uuid with 401, never 500", async () => {
    const response = await me(await sign({ sub: "not-a-uuid", tenant: "" }));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: expect.any(String) });
  });

  it("refuses a token of a deleted user with 401, never 500", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "administrator");
    const owner = namespace.owner;
    expect((await me(owner.tenantToken)).status).toBe(200);
    const { stdout } = await cli("user", "delete", owner.username);
    expect(stdout).toContain("deleted");
    for (const token of [owner.token, owner.tenantToken]) {
      const current = await me(token);
      expect(current.status).toBe(401);
      expect(current.body).toEqual({ message: expect.any(String) });
      expect((await call("GET", "/api/users/security", { token })).status).toBe(401);
      expect((await call("PATCH", "/api/users", { token, body: { name: "Ghost" } })).status).toBe(401);
    }
    // The owner's namespace went with them: its member's token now names a missing namespace.
    const orphan = await call("GET", "/api/users/security", { token: member.tenantToken });
    expect(orphan.status).toBe(401);
    expect(orphan.body).toEqual({ message: expect.any(String) });
  });

  it("gives 401 on namespace routes when the token's namespace was deleted, never 500", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "observer");
    const deleted = await call("DELETE", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
    });
    expect(deleted.status).toBe(200);
    for (const token of [namespace.owner.tenantToken, member.tenantToken]) {
      const response = await call("GET", "/api/users/security", { token });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String) });
      // Routes naming the namespace say it is not there.
      expect((await call("GET", `/api/namespaces/${namespace.tenantId}`, { token })).status).toBe(404);
      // The user is still there.
      expect((await me(token)).status).toBe(200);
    }
  });

  it.each([["Basic dXNlcjpwYXNz"], ["Bearer"], ["Bearer "], ["Bearer a b"], ["Token abc.def.ghi"], ["bearer"]])(
    "answers 401 with a message for the malformed Authorization header %j",
    async (authorization) => {
      const response = await call("GET", "/api/auth/user", { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.stringMatching(/\S/) });
    },
  );

  it("answers 401 with a message for a Bearer value that is not a JWT", async () => {
    for (const token of ["garbage", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30."]) {
      const response = await call("GET", "/api/auth/user", { token });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.stringMatching(/\S/) });
    }
  });

  it("answers 401 with a message naming the missing credentials", async () => {
    const response = await call("GET", "/api/users/security");
    expect(response.status).toBe(401);
    expect(response.body.message).toMatch(/Authorization|X-API-KEY/i);
  });
});

describe("roles are read from the database on every request", () => {
  const edit = (tenantId: string, token: string, name: string) =>
    call("PUT", `/api/namespaces/${tenantId}`, { token, body: { name } });

  it("a demoted member loses their rights at the next request with the same JWT", async () => {
    const namespace = await seedNamespace();
    const admin = await seedMember(namespace, "administrator");
    expect((await edit(namespace.tenantId, admin.tenantToken, uniqueName("ns"))).status).toBe(200);
    const demoted = await call("PATCH", `/api/namespaces/${namespace.tenantId}/members/${admin.id}`, {
      token: namespace.owner.tenantToken,
      body: { role: "observer" },
    });
    expect(demoted.status).toBe(200);
    const name = uniqueName("ns");
    const refused = await edit(namespace.tenantId, admin.tenantToken, name);
    expect(refused.status).toBe(403);
    const view = await call("GET", `/api/namespaces/${namespace.tenantId}`, { token: admin.tenantToken });
    expect(view.status).toBe(200);
    expect(view.body.name).not.toBe(name);
    expect((await call("GET", "/api/auth/user", { token: admin.tenantToken })).body.role).toBe("observer");
  });

  it("a removed member loses access at the next request with the same JWT", async () => {
    const namespace = await seedNamespace();
    const admin = await seedMember(namespace, "administrator");
    expect((await call("GET", "/api/users/security", { token: admin.tenantToken })).status).toBe(200);
    const removed = await call("DELETE", `/api/namespaces/${namespace.tenantId}/members/${admin.id}`, {
      token: namespace.owner.tenantToken,
    });
    expect(removed.status).toBe(200);
    expect((await call("GET", "/api/users/security", { token: admin.tenantToken })).status).toBe(403);
    expect((await call("GET", `/api/namespaces/${namespace.tenantId}`, { token: admin.tenantToken })).status).toBe(404);
    expect((await edit(namespace.tenantId, admin.tenantToken, uniqueName("ns"))).status).toBe(404);
  });
});

describe("forged headers", () => {
  it("an observer sending X-Role, X-Tenant-ID, X-ID and x-middleware-subrequest still gets 403", async () => {
    const namespace = await seedNamespace();
    const observer = await seedMember(namespace, "observer");
    const headers = {
      "x-role": "owner",
      "x-tenant-id": namespace.tenantId,
      "x-id": namespace.owner.id,
      "x-username": namespace.owner.username,
      "x-middleware-subrequest": "middleware:middleware:middleware:middleware:middleware",
    };
    const name = uniqueName("ns");
    const response = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      token: observer.tenantToken,
      headers,
      body: { name },
    });
    expect(response.status).toBe(403);
    const deleted = await call("DELETE", `/api/namespaces/${namespace.tenantId}`, {
      token: observer.tenantToken,
      headers,
    });
    expect(deleted.status).toBe(403);
    const view = await call("GET", `/api/namespaces/${namespace.tenantId}`, { token: observer.tenantToken });
    expect(view.status).toBe(200);
    expect(view.body.name).toBe(namespace.name);
  });

  it("X-Tenant-ID does not switch a user to another namespace", async () => {
    const mine = await seedNamespace();
    const theirs = await seedNamespace();
    const turnedOn = await call("PUT", `/api/users/security/${theirs.tenantId}`, {
      token: theirs.owner.tenantToken,
      body: { session_record: true },
    });
    expect(turnedOn.status).toBe(200);
    expect(turnedOn.body).toBe(true);
    const response = await call("GET", "/api/users/security", {
      token: mine.owner.tenantToken,
      headers: { "x-tenant-id": theirs.tenantId, "x-role": "owner", "x-id": theirs.owner.id },
    });
    expect(response.status).toBe(200);
    expect(response.body).toBe(false);
    const me = await call("GET", "/api/auth/user", {
      token: mine.owner.tenantToken,
      headers: { "x-tenant-id": theirs.tenantId, "x-id": theirs.owner.id },
    });
    expect(me.body).toMatchObject({ id: mine.owner.id, tenant: mine.tenantId });
  });

  it("a request without credentials but with those headers still gets 401", async () => {
    const namespace = await seedNamespace();
    const headers = {
      "x-role": "owner",
      "x-tenant-id": namespace.tenantId,
      "x-id": namespace.owner.id,
      "x-username": namespace.owner.username,
      "x-middleware-subrequest": "middleware:middleware:middleware:middleware:middleware",
    };
    const requests: [string, string, unknown][] = [
      ["GET", "/api/users/security", undefined],
      ["GET", "/api/auth/user", undefined],
      ["GET", `/api/namespaces/${namespace.tenantId}`, undefined],
      ["PUT", `/api/namespaces/${namespace.tenantId}`, { name: uniqueName("ns") }],
      ["DELETE", `/api/namespaces/${namespace.tenantId}`, undefined],
      ["PATCH", "/api/users", { name: "Forged" }],
    ];
    for (const [method, path, body] of requests) {
      const response = await call(method, path, { headers, body });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.body, `${method} ${path}`).toEqual({ message: expect.any(String) });
    }
    const view = await call("GET", `/api/namespaces/${namespace.tenantId}`, { token: namespace.owner.tenantToken });
    expect(view.status).toBe(200);
    expect(view.body.name).toBe(namespace.name);
  });
});

describe("request bodies", () => {
  const oneMegabyte = 1024 * 1024;
  const bigLogin = (size: number) => {
    const prefix = '{"username":"someone","password":"';
    return `${prefix}${"a".repeat(size - prefix.length - 2)}"}`;
  };

  it("answers 413 to a body over 1 MB announced by content-length", async () => {
    const body = bigLogin(oneMegabyte + 10);
    const response = await call("POST", "/api/login", {
      rawBody: body,
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: expect.any(String) });
  });

  it("answers 413 to a chunked body over 1 MB (fetch stream)", async () => {
    const chunk = new TextEncoder().encode("a".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"username":"someone","password":"'));
      },
      pull(controller) {
        if (sent >= oneMegabyte + 128 * 1024) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${inject("baseUrl")}/api/register`, {
      method: "POST",
      // Not kept for later requests of this file: see the keep-alive test below.
      headers: { "content-type": "application/json", connection: "close" },
      body: stream,
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: expect.any(String) });
  });

  it("after a 413 on a closing connection, reads on what the client still sends: no reset loses the answer", async () => {
    const client = await chunkedSender(inject("baseUrl"), "/api/register");
    client.send(oneMegabyte);
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 413 /), { timeout: 5000 });
    // A client busy sending its body sends on after the answer came: the server still reads it.
    await client.sendOn(3);
    await client.finish();
    expect(client.failures).toEqual([]);
    expect(client.received()).toContain('{"message":"request body is larger than 1 MB"}');
  });

  it("answers 413 to a chunked body over 1 MB (node:http, no content-length)", async () => {
    const answer = await postChunked(new http.Agent({ keepAlive: false }), 20 * 64 * 1024);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({ message: expect.any(String) });
  });

  it.each([
    ["with content-length", false],
    ["chunked", true],
  ])("keeps a keep-alive connection usable after refusing a body over 1 MB %s", async (_, isChunked) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = isChunked
        ? await postChunked(agent, 20 * 64 * 1024)
        : await postWithLength(agent, bigLogin(oneMegabyte + 10));
      expect(refused.status).toBe(413);
      // The next request on the same agent must be answered: either the connection was
      // drained and reused, or the server said `Connection: close` and a new one is opened.
      const next = await get(agent, "/api/healthcheck");
      expect(next).toMatchObject({ status: 200, text: '{"status":"ok"}' });
    } finally {
      agent.destroy();
    }
  });

  it("reads a body just under 1 MB normally (400 for the too long password, not 413)", async () => {
    const response = await call("POST", "/api/login", {
      rawBody: bigLogin(oneMegabyte - 100),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(400);
  });

  it("answers 400 to a NUL character in a JSON string or key", async () => {
    const user = await seedUser();
    const bodies = [
      `{"username":"${user.username}\\u0000","password":"${user.password}"}`,
      `{"username":"${user.username}","password":"${user.password}","x\\u0000":1}`,
      `{"name":"Nul\\u0000Name","username":"${uniqueName("nul")}","email":"${uniqueName("nul")}@example.com","password":"secret-pass"}`,
    ];
    for (const [index, rawBody] of bodies.entries()) {
      const target = index === 2 ? "/api/register" : "/api/login";
      const response = await call("POST", target, { rawBody, headers: { "content-type": "application/json" } });
      expect(response.status, rawBody).toBe(400);
      expect(response.body, rawBody).toEqual({ message: expect.any(String) });
    }
    const patched = await call("PATCH", "/api/users", {
      token: user.token,
      rawBody: '{"name":"Bad\\u0000Name"}',
      headers: { "content-type": "application/json" },
    });
    expect(patched.status).toBe(400);
    expect((await call("GET", "/api/auth/user", { token: user.token })).body.name).toBe("Test User");
  });

  it.each([
    ["arrays", (depth: number) => `${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}`],
    ["objects", (depth: number) => `${'{"a":'.repeat(depth)}"\\u0000"${"}".repeat(depth)}`],
  ])(
    "answers 400 to a NUL character nested 100,000 deep in %s, on public and logged-in routes",
    async (_label, nested) => {
      const user = await seedUser();
      const targets: [string, string | undefined][] = [
        ["/api/login", undefined],
        ["/api/devices/auth", undefined],
        ["/api/namespaces", user.token],
      ];
      for (const [target, token] of targets) {
        const response = await call("POST", target, {
          token,
          rawBody: nested(100_000),
          headers: { "content-type": "application/json" },
        });
        expect(response.status, target).toBe(400);
        expect(response.body, target).toEqual({ message: "request body contains a NUL character" });
      }
    },
  );

  it("answers 400 to a lone UTF-16 surrogate in a JSON string or key, storing nothing", async () => {
    const user = await seedUser();
    for (const rawBody of ['{"name":"a\\ud800b"}', '{"name":"ok","\\udfff":1}']) {
      const response = await call("PATCH", "/api/users", {
        token: user.token,
        rawBody,
        headers: { "content-type": "application/json" },
      });
      expect(response.status, rawBody).toBe(400);
      expect(response.body).toEqual({ message: "request body contains a lone UTF-16 surrogate" });
    }
    // A surrogate pair is one character, and welcome.
    const paired = await call("PATCH", "/api/users", {
      token: user.token,
      rawBody: '{"name":"Smile \\ud83d\\ude00"}',
      headers: { "content-type": "application/json" },
    });
    expect(paired.status, paired.text).toBe(200);
    expect((await call("GET", "/api/auth/user", { token: user.token })).body.name).toBe("Smile \u{1f600}");
  });

  it.each(["%ff", "%c0%af", "%ED%A0%80", "%e2%82", "%", "a%zz"])(
    "answers 400 with JSON to the malformed percent-encoding %s in a path parameter",
    async (segment) => {
      const user = await seedUser();
      for (const target of [`/api/auth/token/${segment}`, `/api/devices/${segment}`, `/api/tags/${segment}`]) {
        const response = await call("GET", target, { token: user.token });
        expect(response.status, target).toBe(400);
        expect(response.body, target).toEqual({ message: expect.stringContaining("percent-encoding") });
      }
    },
  );

  it("answers 400 to a NUL character in a path parameter or query", async () => {
    const user = await seedUser();
    expect((await call("GET", "/api/auth/token/%00", { token: user.token })).status).toBe(400);
    expect((await call("GET", "/api/namespaces?filter=%00", { token: user.token })).status).toBe(400);
  });

  it.each([
    ["/api/login", "{"],
    ["/api/login", '{"username": "abc", "password": }'],
    ["/api/register", "not json"],
    ["/api/register", '{"name":"x",}'],
  ])("answers 400 with a message to malformed JSON on %s: %j", async (target, rawBody) => {
    const response = await call("POST", target, { rawBody, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: expect.any(String) });
  });

  it("answers 400 with a message to malformed JSON on an authenticated route", async () => {
    const user = await seedUser();
    const response = await call("POST", "/api/namespaces", {
      token: user.token,
      rawBody: '{"name": ',
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: expect.any(String) });
  });
});

describe("path parameters", () => {
  it("answers 400, not 500, for path parameters that are not uuids", async () => {
    const namespace = await seedNamespace();
    const token = namespace.owner.tenantToken;
    const requests: [string, string, unknown][] = [
      ["GET", "/api/namespaces/not-a-uuid", undefined],
      ["PUT", "/api/namespaces/12345", { name: uniqueName("ns") }],
      ["DELETE", "/api/namespaces/xyz", undefined],
      ["GET", "/api/token/' or 1=1 --", undefined],
      ["GET", "/api/auth/token/not-a-uuid", undefined],
      ["PATCH", `/api/namespaces/${namespace.tenantId}/members/not-a-uuid`, { role: "observer" }],
      ["DELETE", `/api/namespaces/${namespace.tenantId}/members/1`, undefined],
      ["PUT", "/api/users/security/abc", { session_record: true }],
      ["PATCH", "/api/users/abc/data", { name: "Valid Name" }],
      ["PATCH", "/api/users/abc/password", { current_password: "x", new_password: "valid-pass" }],
    ];
    for (const [method, target, body] of requests) {
      const response = await call(method, encodeURI(target), { token, body });
      expect(response.status, `${method} ${target}`).toBe(400);
      // The user update routes answer with the array of offending field names.
      const expected = target.startsWith("/api/users/abc/")
        ? ["id"]
        : expect.objectContaining({ message: expect.any(String) });
      expect(response.body, `${method} ${target}`).toEqual(expected);
    }
  });
});
