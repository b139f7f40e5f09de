import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "@/testing/client";
import { seedDenyingRule } from "@/testing/seeds/firewall-rules";
import { seedNamespace } from "@/testing/seeds/namespaces";
import { isRoot, keyOnly, keyPair, scratchDir, sshPort, sshTo, startDevice, type TestDevice } from "@/testing/ssh";
import { waitFor } from "@/testing/wait";

type Diagnostics = {
  online: boolean;
  agent_version: string;
  clock_skew_ms: number | null;
  transitions: { time: string; online: boolean; cause: string }[];
  refused_logins: { login: string; source: string; reason: string }[];
  last_login: { login: string } | null;
};

describe.skipIf(!isRoot)("a real device's diagnostics (needs root: test account, agent as root)", () => {
  let device: TestDevice | undefined;
  let scratch: string;

  beforeAll(async () => {
    scratch = scratchDir();
    device = await startDevice();
  });

  afterAll(async () => {
    await device?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("show how the device came online and went offline, and why a login was refused", async () => {
    if (!device) throw new Error("no device");
    const { namespace, account, deviceUid, target } = device;
    const owner = { token: namespace.owner.tenantToken };
    const diagnostics = async () => {
      const response = await call("GET", `/api/devices/${deviceUid}/diagnostics`, owner);
      expect(response.status, response.text).toBe(200);
      return response.body as Diagnostics;
    };
    const key = keyPair(scratch);
    const added = await call("POST", "/api/sshkeys/public-keys", {
      ...owner,
      body: {
        data: Buffer.from(key.line).toString("base64"),
        name: `key-${randomBytes(3).toString("hex")}`,
        filter: { hostname: ".*" },
        username: ".*",
      },
    });
    expect(added.status, added.text).toBe(200);
    const rule = await seedDenyingRule(namespace, `^${account.name}$`);
    expect((await sshTo(await sshPort(), [...keyOnly(key.file), target, "true"])).code).toBe(255);
    await rule.remove();

    const before = await diagnostics();
    expect(before.online).toBe(true);
    expect(before.agent_version).not.toBe("");
    // Agent and server share this machine's clock: the skew is the upgrade's delay, well under 5 s.
    expect(Math.abs(before.clock_skew_ms ?? Number.NaN)).toBeLessThan(5_000);
    expect(before.transitions[0]).toMatchObject({
      online: true,
      cause: "registered by its agent",
    });
    expect(before.refused_logins[0]).toMatchObject({ login: account.name, source: "127.0.0.1" });
    expect(before.refused_logins[0]?.reason).toMatch(/^firewall rule #\d+ \(priority 1\) denies/);
    expect(before.last_login).toBeNull();
    const stranger = await seedNamespace();
    const elsewhere = await call("GET", `/api/devices/${deviceUid}/diagnostics`, { token: stranger.owner.tenantToken });
    expect(elsewhere.status).toBe(404);

    await device.stop();
    device = undefined;
    await waitFor("the device's offline transition", async () => (await diagnostics()).online === false);
    const [last] = (await diagnostics()).transitions;
    expect(last).toMatchObject({
      online: false,
      cause: expect.stringMatching(/^(the agent said it is stopping|tunnel closed)$/),
    });
  });
});
