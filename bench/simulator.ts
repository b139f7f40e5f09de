import { generateKeyPairSync, sign } from "node:crypto";
import { Agent, request } from "node:http";
import { deviceProofText } from "../lib/protocol";

/**
 * A simulated agent: what it sends on every call (signed at `signedAt`, `sign` signs it anew) and
 * what the server answered.
 */
export type SimulatedDevice = {
  hostname: string;
  body: string;
  signedAt: number;
  sign: () => void;
  uid?: string;
  token?: string;
};

// As the agent does: a proof is signed anew when it is five minutes old.
const resignAfterMs = 300_000;

const info = {
  id: "debian",
  pretty_name: "Debian GNU/Linux 12 (bookworm)",
  version: "0.1.0",
  arch: "x86_64",
  platform: "native",
};

/**
 * `count` devices of one namespace, each with its own ed25519 key (the key is the device) and the
 * proof its agent sends (docs/device-identity.md).
 */
export function makeDevices(count: number, tenantId: string, prefix = "sim"): SimulatedDevice[] {
  return Array.from({ length: count }, (_, index) => {
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
    const hostname = `${prefix}-${index}`;
    const mac = [0x02, (index >> 24) & 255, (index >> 16) & 255, (index >> 8) & 255, index & 255, 0x01]
      .map((byte) => byte.toString(16).padStart(2, "0"))
      .join(":");
    const identity = { tenant_id: tenantId, hostname, identity: { mac } };
    const device: SimulatedDevice = {
      hostname,
      body: "",
      signedAt: 0,
      sign: () => {
        const timestamp = Math.floor(Date.now() / 1000);
        const text = Buffer.from(deviceProofText(identity, timestamp));
        const proof = { timestamp, signature: sign(null, text, privateKey).toString("base64") };
        device.body = JSON.stringify({ info, sessions: [], ...identity, public_key: pem, proof });
        device.signedAt = Date.now();
      },
    };
    device.sign();
    return device;
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 128 });

/** One agent call; fills in the device's uid and token. */
export function authenticate(baseUrl: string, device: SimulatedDevice): Promise<number> {
  if (Date.now() - device.signedAt > resignAfterMs) device.sign();
  return new Promise((resolve, reject) => {
    const call = request(
      `${baseUrl}/api/devices/auth`,
      { method: "POST", headers: { "content-type": "application/json" }, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode === 200) {
            const answer = JSON.parse(Buffer.concat(chunks).toString()) as { uid: string; token: string };
            device.uid = answer.uid;
            device.token = answer.token;
          }
          resolve(response.statusCode ?? 0);
        });
        response.on("error", reject);
      },
    );
    call.on("error", reject);
    call.end(device.body);
  });
}

async function inParallel<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

/** Registers every device (their first call), `concurrency` at a time. */
export async function registerAll(baseUrl: string, devices: SimulatedDevice[], concurrency = 64) {
  await inParallel(devices, concurrency, async (device) => {
    const status = await authenticate(baseUrl, device);
    if (status !== 200) throw new Error(`registration of ${device.hostname} answered ${status}`);
  });
}

/**
 * Every device calls in once per `intervalMs`, spread evenly over the interval, until
 * `durationMs` has passed (or forever when it is 0). Returns the answers' status counts.
 */
export async function heartbeatLoop(
  baseUrl: string,
  devices: SimulatedDevice[],
  { intervalMs, durationMs }: { intervalMs: number; durationMs: number },
) {
  const statuses = new Map<number, number>();
  const started = Date.now();
  const gap = intervalMs / Math.max(1, devices.length);
  const pending = new Set<Promise<void>>();
  for (let round = 0; durationMs === 0 || Date.now() - started < durationMs; round++) {
    for (const [index, device] of devices.entries()) {
      const due = started + round * intervalMs + index * gap;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (durationMs !== 0 && Date.now() - started >= durationMs) break;
      const call = authenticate(baseUrl, device)
        .then((status) => void statuses.set(status, (statuses.get(status) ?? 0) + 1))
        .catch(() => void statuses.set(0, (statuses.get(0) ?? 0) + 1))
        .finally(() => pending.delete(call));
      pending.add(call);
    }
  }
  await Promise.all(pending);
  return statuses;
}

/** `npm run bench -- simulate --server URL --tenant-id UUID [--devices N] [--interval-seconds S]` */
export async function simulate(args: Map<string, string>) {
  const server = args.get("server");
  const tenantId = args.get("tenant-id");
  if (!server || !tenantId)
    throw new Error("usage: simulate --server URL --tenant-id UUID [--devices N] [--interval-seconds S]");
  const devices = makeDevices(Number(args.get("devices") ?? 10), tenantId, args.get("prefix") ?? "sim");
  await registerAll(server, devices);
  process.stdout.write(
    `${devices.length} devices registered; calling in every ${args.get("interval-seconds") ?? 30} s (Ctrl-C stops)\n`,
  );
  await heartbeatLoop(server, devices, {
    intervalMs: Number(args.get("interval-seconds") ?? 30) * 1000,
    durationMs: 0,
  });
}
