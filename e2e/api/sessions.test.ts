import { beforeAll, describe, expect, inject, it } from "vitest";
import { type CallOptions, call, randomUid } from "@/testing/client";
import { internalHeaders } from "@/testing/internal";
import { type SeededDevice, seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { frame, seedSession, sessionInput, setRecording } from "@/testing/seeds/sessions";

/**
 * Sessions over real HTTP: the console's operations (list, get, play, close), and those of the
 * SSH gateway (start, set authenticated, record; internal secret) and of the agent (record;
 * device token). Sessions start as the gateway starts them.
 */

const isoDate = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

async function getSession(namespace: SeededNamespace, uid: string) {
  return call("GET", `/api/sessions/${uid}`, { token: namespace.owner.tenantToken });
}

async function activeOf(namespace: SeededNamespace, uid: string) {
  const response = await getSession(namespace, uid);
  expect(response.status, response.text).toBe(200);
  return response.body.active as boolean;
}

async function play(namespace: SeededNamespace, uid: string) {
  const response = await call("GET", `/api/sessions/${uid}/play`, { token: namespace.owner.tenantToken });
  expect(response.status, response.text).toBe(200);
  return response.body as {
    uid: string;
    message: string;
    tenant_id: string;
    time: string;
    width: number;
    height: number;
  }[];
}

async function start(body: unknown) {
  return call("POST", "/internal/sessions", { headers: await internalHeaders(), body });
}

async function record(uid: string, body: unknown, credentials: Pick<CallOptions, "token" | "headers">) {
  return call("POST", `/api/sessions/${uid}/record`, { ...credentials, body });
}

describe("GET /api/sessions", () => {
  it("lists only the namespace's sessions, newest first, each with its device, paginated", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const [first, second] = await Promise.all([seedDevice(namespace), seedDevice(namespace)]);
    const started: string[] = [];
    for (const device of [first, second, first, second]) {
      started.push((await seedSession(namespace, { device })).session.uid);
    }
    await seedSession(other);
    const newestFirst = [...started].reverse();

    const all = await call("GET", "/api/sessions?per_page=100", { token: namespace.owner.tenantToken });
    expect(all.status, all.text).toBe(200);
    expect(all.headers.get("x-total-count")).toBe("4");
    expect(all.body.map((session: { uid: string }) => session.uid)).toEqual(newestFirst);

    const pages = await Promise.all(
      [1, 2, 3].map((page) =>
        call("GET", `/api/sessions?page=${page}&per_page=3`, { token: namespace.owner.tenantToken }),
      ),
    );
    expect(pages.map((page) => page.headers.get("x-total-count"))).toEqual(["4", "4", "4"]);
    expect(pages.map((page) => page.body.map((session: { uid: string }) => session.uid))).toEqual([
      newestFirst.slice(0, 3),
      newestFirst.slice(3),
      [],
    ]);

    const [latest] = all.body;
    expect(latest).toEqual({
      uid: started[3],
      device_uid: second.uid,
      device: {
        uid: second.uid,
        name: second.name,
        identity: { mac: expect.stringMatching(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/) },
        info: {
          id: "debian",
          pretty_name: "Debian GNU/Linux 12",
          version: "0.1.0",
          arch: "x86_64",
          platform: "native",
        },
        public_key: expect.stringContaining("-----BEGIN PUBLIC KEY-----"),
        tenant_id: namespace.tenantId,
        last_seen: isoDate,
        online: expect.any(Boolean),
        namespace: namespace.name,
        status: "pending",
        status_update_at: isoDate,
        created_at: isoDate,
        remote_addr: expect.any(String),
        position: null,
        tags: [],
        public_url: false,
        acceptable: true,
      },
      tenant_id: namespace.tenantId,
      username: "root",
      ip_address: "192.0.2.10",
      started_at: isoDate,
      last_seen: isoDate,
      active: true,
      authenticated: false,
      recorded: false,
      type: "shell",
      term: "xterm-256color",
      reason: "",
      position: null,
    });
    const startedAt = all.body.map((session: { started_at: string }) => session.started_at);
    expect([...startedAt].sort().reverse()).toEqual(startedAt);
  });

  it("pages 10 at a time by default; an empty namespace has none", async () => {
    const [namespace, empty] = await Promise.all([seedNamespace(), seedNamespace()]);
    const device = await seedDevice(namespace);
    for (let index = 0; index < 11; index++) await seedSession(namespace, { device });
    const first = await call("GET", "/api/sessions", { token: namespace.owner.tenantToken });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(10);
    expect(first.headers.get("x-total-count")).toBe("11");
    const second = await call("GET", "/api/sessions?page=2", { token: namespace.owner.tenantToken });
    expect(second.body).toHaveLength(1);
    const far = await call("GET", "/api/sessions?page=9007199254740991&per_page=100", {
      token: namespace.owner.tenantToken,
    });
    expect(far.status, far.text).toBe(200);
    expect(far.body).toEqual([]);
    expect(far.headers.get("x-total-count")).toBe("11");
    const none = await call("GET", "/api/sessions", { token: empty.owner.tenantToken });
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
    expect(none.headers.get("x-total-count")).toBe("0");
  });

  it("narrows by device and by state with the console's filters, X-Total-Count counting the matches", async () => {
    const namespace = await seedNamespace();
    const [first, second] = await Promise.all([seedDevice(namespace), seedDevice(namespace)]);
    const onFirst = (await seedSession(namespace, { device: first })).session.uid;
    const onSecond = (await seedSession(namespace, { device: second })).session.uid;
    const token = namespace.owner.tenantToken;
    const byDevice = await call("GET", `/api/sessions?device_uid=${first.uid}`, { token });
    expect(byDevice.headers.get("x-total-count")).toBe("1");
    expect(byDevice.body.map((session: { uid: string }) => session.uid)).toEqual([onFirst]);
    const live = await call("GET", "/api/sessions?active=true&authenticated=false&recorded=false&username=root", {
      token,
    });
    expect(live.body.map((session: { uid: string }) => session.uid).sort()).toEqual([onFirst, onSecond].sort());
    const ended = await call("GET", "/api/sessions?active=false", { token });
    expect(ended.headers.get("x-total-count")).toBe("0");
  });

  it("answers an observer's API key", async () => {
    const namespace = await seedNamespace();
    const { session } = await seedSession(namespace);
    const response = await call("GET", "/api/sessions", { apiKey: await seedApiKey(namespace, "observer") });
    expect(response.status).toBe(200);
    expect(response.body.map((item: { uid: string }) => item.uid)).toEqual([session.uid]);
  });
});

describe("GET /api/sessions/{uid}", () => {
  let namespace: SeededNamespace;
  let other: SeededNamespace;
  let uid: string;
  let foreignUid: string;
  beforeAll(async () => {
    [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    uid = (await seedSession(namespace)).session.uid;
    foreignUid = (await seedSession(other)).session.uid;
  });

  it("answers the session with its device, as the list shows it", async () => {
    const response = await getSession(namespace, uid);
    expect(response.status, response.text).toBe(200);
    const list = await call("GET", "/api/sessions", { token: namespace.owner.tenantToken });
    expect(list.body).toEqual([response.body]);
  });

  it("answers 404 for another namespace's session and for an unknown uid", async () => {
    for (const missing of [foreignUid, randomUid()]) {
      const response = await getSession(namespace, missing);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: "session not found" });
    }
    // The other namespace still has it.
    expect((await getSession(other, foreignUid)).status).toBe(200);
  });

  it.each([
    ["upper-case hex", () => uid.toUpperCase()],
    ["63 characters", () => uid.slice(1)],
    ["65 characters", () => `${uid}0`],
    ["not hex", () => "g".repeat(64)],
  ])("answers 400 for a uid in %s", async (_label, bad) => {
    const response = await getSession(namespace, bad());
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: expect.any(String),
      fields: [{ field: "uid", message: expect.any(String) }],
    });
  });
});

describe("POST /internal/sessions (the gateway starts a session)", () => {
  it("starts an active session in the device's namespace, recorded when the namespace records", async () => {
    const namespace = await seedNamespace();
    const device = await seedDevice(namespace);
    const plain = await start(
      sessionInput(device, { username: "alice", ip_address: "2001:db8::1", type: "exec", term: "" }),
    );
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body).toMatchObject({
      device_uid: device.uid,
      tenant_id: namespace.tenantId,
      username: "alice",
      ip_address: "2001:db8::1",
      type: "exec",
      term: "",
      active: true,
      authenticated: false,
      recorded: false,
    });
    await setRecording(namespace, true);
    const recorded = await start(sessionInput(device));
    expect(recorded.status).toBe(200);
    expect(recorded.body.recorded).toBe(true);
    // The setting applies to sessions started later only.
    expect((await getSession(namespace, plain.body.uid)).body.recorded).toBe(false);
  });

  it("refuses a uid in use (409) and an unknown device (404), storing nothing", async () => {
    const namespace = await seedNamespace();
    const device = await seedDevice(namespace);
    const input = sessionInput(device);
    expect((await start(input)).status).toBe(200);
    const again = await start({ ...input, username: "mallory" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: expect.any(String) });
    const unknown = await start(sessionInput({ uid: randomUid() }));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: "device not found" });
    const list = await call("GET", "/api/sessions", { token: namespace.owner.tenantToken });
    expect(list.body.map((session: { username: string }) => session.username)).toEqual(["root"]);
  });

  it("needs the internal secret", async () => {
    const namespace = await seedNamespace();
    const device = await seedDevice(namespace);
    for (const credentials of [
      {},
      { headers: { "x-internal-secret": "wrong" } },
      { token: namespace.owner.tenantToken },
      { token: device.token },
    ]) {
      const response = await call("POST", "/internal/sessions", { ...credentials, body: sessionInput(device) });
      expect(response.status).toBe(401);
    }
    const list = await call("GET", "/api/sessions", { token: namespace.owner.tenantToken });
    expect(list.body).toEqual([]);
  });
});

describe("POST /api/sessions/{uid} (set authenticated)", () => {
  it("sets and clears the flag with the internal secret", async () => {
    const namespace = await seedNamespace();
    const { session } = await seedSession(namespace);
    for (const authenticated of [true, false, true]) {
      const response = await call("POST", `/api/sessions/${session.uid}`, {
        headers: await internalHeaders(),
        body: { authenticated },
      });
      expect(response.status, response.text).toBe(200);
      expect((await getSession(namespace, session.uid)).body.authenticated).toBe(authenticated);
    }
  });

  it("refuses users, API keys and device tokens (401) and unknown sessions (404)", async () => {
    const namespace = await seedNamespace();
    const { session, device } = await seedSession(namespace);
    for (const credentials of [
      { token: namespace.owner.tenantToken },
      { apiKey: await seedApiKey(namespace, "owner") },
      { token: device.token },
    ]) {
      const response = await call("POST", `/api/sessions/${session.uid}`, {
        ...credentials,
        body: { authenticated: true },
      });
      expect(response.status).toBe(401);
    }
    const unknown = await call("POST", `/api/sessions/${randomUid()}`, {
      headers: await internalHeaders(),
      body: { authenticated: true },
    });
    expect(unknown.status).toBe(404);
    expect((await getSession(namespace, session.uid)).body.authenticated).toBe(false);
  });
});

describe("POST /api/sessions/{uid}/record and GET /api/sessions/{uid}/play", () => {
  let namespace: SeededNamespace;
  let device: SeededDevice;
  beforeAll(async () => {
    namespace = await seedNamespace();
    await setRecording(namespace, true);
    device = await seedDevice(namespace);
  });
  const recordedSession = async () => (await seedSession(namespace, { device })).session.uid;

  it("stores frames from the gateway and from the session's device, and plays them in order", async () => {
    const uid = await recordedSession();
    const frames = [
      frame(uid, "$ ", 80, 24),
      frame(uid, "ls\r\n", 80, 24),
      frame(uid, "", 0, 0),
      frame(uid, "résumé ✓\u001b[0m", 10_000, 10_000),
    ];
    for (const [index, body] of frames.entries()) {
      const credentials = index % 2 === 0 ? { headers: await internalHeaders() } : { token: device.token };
      const response = await record(uid, body, credentials);
      expect(response.status, response.text).toBe(200);
    }
    const played = await play(namespace, uid);
    expect(played).toEqual(frames.map((item) => ({ ...item, tenant_id: namespace.tenantId, time: isoDate })));
    const times = played.map((item) => item.time);
    expect([...times].sort()).toEqual(times);
  });

  it("plays nothing for a session without frames", async () => {
    expect(await play(namespace, await recordedSession())).toEqual([]);
  });

  it.each([
    ["no uid", () => ({ message: "x", width: 80, height: 24 })],
    ["another session's uid", () => frame(randomUid())],
    ["a uid that is not hex", () => frame("x".repeat(64))],
    ["no message", (uid: string) => ({ uid, width: 80, height: 24 })],
    ["a numeric message", (uid: string) => ({ uid, message: 42, width: 80, height: 24 })],
    ["a null message", (uid: string) => ({ uid, message: null, width: 80, height: 24 })],
    ["a negative width", (uid: string) => frame(uid, "x", -1, 24)],
    ["a width of 10001", (uid: string) => frame(uid, "x", 10_001, 24)],
    ["a fractional width", (uid: string) => frame(uid, "x", 80.5, 24)],
    ["a width as a string", (uid: string) => ({ uid, message: "x", width: "80", height: 24 })],
    ["no height", (uid: string) => ({ uid, message: "x", width: 80 })],
    ["a negative height", (uid: string) => frame(uid, "x", 80, -1)],
    ["a height of 10001", (uid: string) => frame(uid, "x", 80, 10_001)],
    ["an empty object", () => ({})],
  ])("answers 422 with a message for a frame with %s, storing nothing", async (_label, bad) => {
    const uid = await recordedSession();
    for (const credentials of [{ headers: await internalHeaders() }, { token: device.token }]) {
      const response = await record(uid, bad(uid), credentials);
      expect(response.status, response.text).toBe(422);
      expect(response.body).toEqual({ message: expect.stringMatching(/^bad frame: /) });
    }
    expect(await play(namespace, uid)).toEqual([]);
  });

  it("answers 422 for a session that is not recorded, and keeps recording one started while recording was on", async () => {
    const other = await seedNamespace();
    const otherDevice = await seedDevice(other);
    const { session } = await seedSession(other, { device: otherDevice });
    expect(session.recorded).toBe(false);
    const refused = await record(session.uid, frame(session.uid), { token: otherDevice.token });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ message: "the session is not recorded" });
    const played = await call("GET", `/api/sessions/${session.uid}/play`, { token: other.owner.tenantToken });
    expect(played.body).toEqual([]);

    await setRecording(other, true);
    const recorded = (await seedSession(other, { device: otherDevice })).session.uid;
    await setRecording(other, false);
    expect((await record(recorded, frame(recorded), { token: otherDevice.token })).status).toBe(200);
  });

  it("answers 422 for a session that has ended, storing nothing", async () => {
    const uid = await recordedSession();
    expect((await record(uid, frame(uid, "before"), { token: device.token })).status).toBe(200);
    const closed = await call("POST", `/api/sessions/${uid}/close`, {
      token: namespace.owner.tenantToken,
      body: { device: device.uid },
    });
    expect(closed.status, closed.text).toBe(200);
    for (const credentials of [{ headers: await internalHeaders() }, { token: device.token }]) {
      const refused = await record(uid, frame(uid, "after"), credentials);
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({ message: "the session has ended" });
    }
    expect((await play(namespace, uid)).map((item) => item.message)).toEqual(["before"]);
  });

  it("takes frames from the session's own device only: another device's token is a 404", async () => {
    const uid = await recordedSession();
    const sibling = await seedDevice(namespace);
    const stranger = await seedNamespace();
    await setRecording(stranger, true);
    const strangerDevice = await seedDevice(stranger);
    for (const token of [sibling.token, strangerDevice.token]) {
      const response = await record(uid, frame(uid), { token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: "session not found" });
    }
    const unknown = randomUid();
    expect((await record(unknown, frame(unknown), { headers: await internalHeaders() })).status).toBe(404);
    expect(await play(namespace, uid)).toEqual([]);
  });

  it("refuses users, API keys and missing credentials (401)", async () => {
    const uid = await recordedSession();
    const refused: Pick<CallOptions, "token" | "headers">[] = [
      {},
      { token: namespace.owner.tenantToken },
      { headers: { "x-api-key": await seedApiKey(namespace, "owner") } },
      { headers: { "x-internal-secret": "wrong" } },
    ];
    for (const credentials of refused) {
      const response = await record(uid, frame(uid), credentials);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
    expect(await play(namespace, uid)).toEqual([]);
  });

  it("plays another namespace's session for nobody (404), and for administrators only (403 below)", async () => {
    const uid = await recordedSession();
    expect((await record(uid, frame(uid), { token: device.token })).status).toBe(200);
    const stranger = await seedNamespace();
    const foreign = await call("GET", `/api/sessions/${uid}/play`, { token: stranger.owner.tenantToken });
    expect(foreign.status).toBe(404);
    for (const role of ["operator", "observer"] as const) {
      const member = await seedMember(namespace, role);
      const response = await call("GET", `/api/sessions/${uid}/play`, { token: member.tenantToken });
      expect(response.status).toBe(403);
    }
    const administrator = await seedMember(namespace, "administrator");
    const allowed = await call("GET", `/api/sessions/${uid}/play`, { token: administrator.tenantToken });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toHaveLength(1);
  });

  it("downloads the recording as an asciicast v2 file, for the same roles as play", async () => {
    const uid = await recordedSession();
    for (const body of [frame(uid, "$ ", 80, 24), frame(uid, "wide\r\n", 132, 40)]) {
      expect((await record(uid, body, { headers: await internalHeaders() })).status).toBe(200);
    }
    const response = await fetch(`${inject("baseUrl")}/api/sessions/${uid}/cast`, {
      headers: { authorization: `Bearer ${namespace.owner.tenantToken}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-asciicast");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="session-${uid.slice(0, 12)}.cast"`);
    const [header, ...events] = (await response.text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(header).toMatchObject({ version: 2, width: 80, height: 24, env: { TERM: expect.any(String) } });
    expect(events.map(([, kind, data]) => [kind, data])).toEqual([
      ["o", "$ "],
      ["r", "132x40"],
      ["o", "wide\r\n"],
    ]);
    for (const [seconds] of events) expect(seconds).toBeGreaterThanOrEqual(0);
    const observer = await seedMember(namespace, "observer");
    expect((await call("GET", `/api/sessions/${uid}/cast`, { token: observer.tenantToken })).status).toBe(403);
    const stranger = await seedNamespace();
    expect((await call("GET", `/api/sessions/${uid}/cast`, { token: stranger.owner.tenantToken })).status).toBe(404);
  });
});

describe("POST /api/sessions/{uid}/close", () => {
  let namespace: SeededNamespace;
  let device: SeededDevice;
  beforeAll(async () => {
    namespace = await seedNamespace();
    device = await seedDevice(namespace);
  });

  it("marks the session inactive, leaves the others alone, and may be repeated", async () => {
    const { session } = await seedSession(namespace, { device });
    const { session: bystander } = await seedSession(namespace, { device });
    const administrator = await seedMember(namespace, "administrator");
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await call("POST", `/api/sessions/${session.uid}/close`, {
        token: administrator.tenantToken,
        body: { device: device.uid },
      });
      expect(response.status, response.text).toBe(200);
      expect(await activeOf(namespace, session.uid)).toBe(false);
    }
    expect(await activeOf(namespace, bystander.uid)).toBe(true);
  });

  it("answers 404 when the device is not the session's, the session is another namespace's or unknown", async () => {
    const { session } = await seedSession(namespace, { device });
    const sibling = await seedDevice(namespace);
    const stranger = await seedNamespace();
    const foreign = await seedSession(stranger);
    const cases: [string, string, string][] = [
      [session.uid, sibling.uid, "own session, another device"],
      [foreign.session.uid, foreign.device.uid, "another namespace's session with its device"],
      [randomUid(), device.uid, "unknown session"],
    ];
    for (const [uid, deviceUid, label] of cases) {
      const response = await call("POST", `/api/sessions/${uid}/close`, {
        token: namespace.owner.tenantToken,
        body: { device: deviceUid },
      });
      expect(response.status, label).toBe(404);
      expect(response.body).toEqual({ message: "session not found" });
    }
    expect(await activeOf(namespace, session.uid)).toBe(true);
    expect(await activeOf(stranger, foreign.session.uid)).toBe(true);
  });

  it("is refused to operators (403), who change nothing", async () => {
    const { session } = await seedSession(namespace, { device });
    const operator = await seedMember(namespace, "operator");
    const response = await call("POST", `/api/sessions/${session.uid}/close`, {
      token: operator.tenantToken,
      body: { device: device.uid },
    });
    expect(response.status).toBe(403);
    expect(await activeOf(namespace, session.uid)).toBe(true);
  });
});
