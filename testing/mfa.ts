import { generate } from "otplib";
import { call } from "./client";

const period = 30;

/**
 * An authenticator app for tests: computes real TOTP codes from the secret with otplib. The
 * server accepts each time step once and takes the previous, current and next step, so `next()`
 * gives a code of a step later than any it gave before, waiting for the clock only when it has
 * run ahead by more than one step.
 */
export class Authenticator {
  private lastStep = 0;

  constructor(readonly secret: string) {}

  /** The code of `offset` steps from now, without recording it (for replays and wrong codes). */
  codeAt(offset: number) {
    return generate({ secret: this.secret, epoch: (Math.floor(Date.now() / 1000 / period) + offset) * period });
  }

  async next(): Promise<string> {
    const now = Date.now() / 1000;
    const current = Math.floor(now / period);
    // The previous step is still accepted, unless the clock may pass a boundary before the server reads it.
    const earliest = now - current * period < 20 ? current - 1 : current;
    const step = Math.max(this.lastStep + 1, earliest);
    if (step > current + 1)
      await new Promise((resolve) => setTimeout(resolve, ((step - 1) * period - now) * 1000 + 200));
    this.lastStep = step;
    return generate({ secret: this.secret, epoch: step * period });
  }
}

export type MfaUser = { authenticator: Authenticator; recoveryCodes: string[] };

/**
 * Turns MFA on for the user of `token` as a person would: a recovery e-mail, Generate, then
 * Enable with a code the authenticator computes. Throws when a step is refused.
 */
export async function enableMfaFor(token: string, email: string, baseUrl?: string): Promise<MfaUser> {
  const updated = await call("PATCH", "/api/users", { token, baseUrl, body: { recovery_email: `backup-${email}` } });
  if (updated.status !== 200) throw new Error(`set recovery e-mail: ${updated.status} ${updated.text}`);
  const generated = await call("GET", "/api/user/mfa/generate", { token, baseUrl });
  if (generated.status !== 200) throw new Error(`generate MFA: ${generated.status} ${generated.text}`);
  const { secret, recovery_codes: recoveryCodes } = generated.body as { secret: string; recovery_codes: string[] };
  const authenticator = new Authenticator(secret);
  const enabled = await call("PUT", "/api/user/mfa/enable", {
    token,
    baseUrl,
    body: { code: await authenticator.next(), secret, recovery_codes: recoveryCodes },
  });
  if (enabled.status !== 200) throw new Error(`enable MFA: ${enabled.status} ${enabled.text}`);
  return { authenticator, recoveryCodes };
}
