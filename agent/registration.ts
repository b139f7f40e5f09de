import { log } from "../lib/log";
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

/** A failed call: `status` is the HTTP status, undefined when the server could not be reached. */
export class RegistrationError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const callTimeoutMs = 15_000;

/**
 * The agent's calls to `POST /api/devices/auth`: the first registers the device, each later one
 * is its heartbeat and refreshes the device token. Failures are logged when they start and when
 * they end, not on every call.
 */
export class Registration {
  private current: DeviceCredentials | undefined;
  private lastProblem = "";

  constructor(
    private readonly serverUrl: string,
    private readonly body: RegistrationBody,
    private readonly sessions: () => string[],
  ) {}

  get credentials(): DeviceCredentials | undefined {
    return this.current;
  }

  async authenticate(): Promise<DeviceCredentials> {
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

  private async call(): Promise<DeviceCredentials> {
    let response: Response;
    try {
      response = await fetch(`${this.serverUrl}/api/devices/auth`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...this.body, sessions: this.sessions() }),
        signal: AbortSignal.timeout(callTimeoutMs),
      });
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause;
      throw new RegistrationError(`the server is unreachable: ${cause?.message ?? (error as Error).message}`);
    }
    const text = await response.text().catch(() => "");
    if (!response.ok)
      throw new RegistrationError(`the server answered ${response.status}: ${text.slice(0, 300)}`, response.status);
    const answer = JSON.parse(text) as Partial<DeviceCredentials>;
    if (typeof answer.uid !== "string" || typeof answer.token !== "string") {
      throw new RegistrationError("the server's answer has no uid and token", response.status);
    }
    return { uid: answer.uid, token: answer.token, name: answer.name ?? "", namespace: answer.namespace ?? "" };
  }
}
