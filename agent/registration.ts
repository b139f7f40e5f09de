import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { log } from "../lib/log";
import { type DeviceProof, deviceProofText } from "../lib/protocol";
import { retryAfterDelay } from "./backoff";
import type { DeviceInfo } from "./os-info";

/** What the server answers to `POST /api/devices/auth`. */
export type DeviceCredentials = { uid: string; token: string; name: string; namespace: string };

export type RegistrationBody = {
  info: DeviceInfo;
  hostname: string;
  identity: { mac: string };
  public_key: string;
  tenant_id: string;
};

/**
 * A failed call: `status` is the HTTP status, undefined when the server could not be reached;
 * `retryAfterMs`, how long a busy server (429) asked to wait, with jitter.
 */
export class RegistrationError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const callTimeoutMs = 15_000;
// A proof holds for ten minutes on the server: signing every five keeps one valid, and the server
// verifies a signature once, not on every heartbeat.
const resignAfterMs = 300_000;
// A server clock this far from ours explains a refused proof: sign again on the server's time.
const clockSkewMs = 30_000;

/**
 * The agent's calls to `POST /api/devices/auth`: the first registers the device, each later one
 * is its heartbeat and refreshes the device token. Failures are logged when they start and when
 * they end, not on every call.
 */
export class Registration {
  private current: DeviceCredentials | undefined;
  private lastProblem = "";
  private readonly deviceKey: KeyObject;
  private proof: DeviceProof | undefined;
  private signedAt = 0;
  private clockOffsetMs = 0;

  /** `privatePem`: the device key, whose signature proves each call (docs/device-identity.md). */
  constructor(
    private readonly serverUrl: string,
    private readonly body: RegistrationBody,
    private readonly sessions: () => string[],
    privatePem: string,
  ) {
    this.deviceKey = createPrivateKey(privatePem);
  }

  get credentials(): DeviceCredentials | undefined {
    return this.current;
  }

  private inFlight = new Set<Promise<unknown>>();

  /** Resolves once no call is in flight (at most `capMs` later): a stopping agent says its last word by closing the tunnel. */
  async settled(capMs: number): Promise<void> {
    const calls = Promise.allSettled([...this.inFlight]);
    await Promise.race([calls, new Promise((resolve) => setTimeout(resolve, capMs).unref())]);
  }

  authenticate(): Promise<DeviceCredentials> {
    const call = this.authenticateOnce();
    this.inFlight.add(call);
    const forget = () => this.inFlight.delete(call);
    call.then(forget, forget);
    return call;
  }

  private async authenticateOnce(): Promise<DeviceCredentials> {
    try {
      const credentials = await this.call();
      if (this.lastProblem || !this.current) {
        log.info("device authenticated", {
          uid: credentials.uid,
          name: credentials.name,
          namespace: credentials.namespace,
        });
      }
      this.lastProblem = "";
      this.current = credentials;
      return credentials;
    } catch (error) {
      const problem = (error as Error).message;
      if (problem !== this.lastProblem) log.warn("device authentication failed", { error: problem });
      this.lastProblem = problem;
      throw error;
    }
  }

  private currentProof(): DeviceProof {
    if (this.proof && Date.now() - this.signedAt < resignAfterMs) return this.proof;
    const timestamp = Math.floor((Date.now() + this.clockOffsetMs) / 1000);
    const text = Buffer.from(deviceProofText(this.body, timestamp));
    const algorithm = this.deviceKey.asymmetricKeyType === "ed25519" ? null : "sha256";
    this.proof = { timestamp, signature: sign(algorithm, text, this.deviceKey).toString("base64") };
    this.signedAt = Date.now();
    return this.proof;
  }

  /**
   * Whether a refusal is down to our clock: the server's `Date` is far from ours. Its offset is
   * then used for the next proof.
   */
  private adoptServerClock(response: Response): boolean {
    const serverTime = Date.parse(response.headers.get("date") ?? "");
    if (Number.isNaN(serverTime)) return false;
    const offset = serverTime - Date.now();
    if (Math.abs(offset - this.clockOffsetMs) < clockSkewMs) return false;
    log.warn("the server's clock differs from the device's; signing on the server's time", { offsetMs: offset });
    this.clockOffsetMs = offset;
    this.proof = undefined;
    return true;
  }

  private async post(): Promise<Response> {
    try {
      return await fetch(`${this.serverUrl}/api/devices/auth`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...this.body, sessions: this.sessions(), proof: this.currentProof() }),
        signal: AbortSignal.timeout(callTimeoutMs),
      });
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause;
      throw new RegistrationError(`the server is unreachable: ${cause?.message ?? (error as Error).message}`);
    }
  }

  private async call(): Promise<DeviceCredentials> {
    let response = await this.post();
    if (response.status === 401 && this.adoptServerClock(response)) {
      await response.body?.cancel();
      response = await this.post();
    }
    const text = await response.text().catch(() => "");
    if (!response.ok) {
      const retryAfterMs = response.status === 429 ? retryAfterDelay(response.headers.get("retry-after")) : undefined;
      throw new RegistrationError(
        `the server answered ${response.status}: ${text.slice(0, 300)}`,
        response.status,
        retryAfterMs,
      );
    }
    const answer = JSON.parse(text) as Partial<DeviceCredentials>;
    if (typeof answer.uid !== "string" || typeof answer.token !== "string") {
      throw new RegistrationError("the server's answer has no uid and token", response.status);
    }
    return { uid: answer.uid, token: answer.token, name: answer.name ?? "", namespace: answer.namespace ?? "" };
  }
}
