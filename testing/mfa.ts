import { Authenticator } from "./authenticator";
import { call } from "./client";

export { Authenticator };

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
