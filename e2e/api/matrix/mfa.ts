import { call } from "@/testing/client";
import { Authenticator, enableMfaFor } from "@/testing/mfa";
import type { Actor, Entry } from "../support/matrix";

/**
 * MFA is per user: a JWT actor enables it on its own account once, then disables it with a
 * recovery code. API keys are refused before the body is read, so they get placeholders and
 * touch nobody's MFA (their actor's user is the namespace owner, a JWT actor too).
 */
const recoveryCodes = new Map<string, string[]>();
const placeholder = { code: "000000", secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", recovery_codes: ["ABCDEFGHJK"] };

async function enableBody(actor: Actor) {
  const token = actor.credentials.token;
  if (!token || recoveryCodes.has(actor.user.id)) return placeholder;
  await call("PATCH", "/api/users", { token, body: { recovery_email: `backup-${actor.user.email}` } });
  const generated = await call("GET", "/api/user/mfa/generate", { token });
  if (generated.status !== 200) throw new Error(`generate MFA: ${generated.status} ${generated.text}`);
  const { secret, recovery_codes: codes } = generated.body as { secret: string; recovery_codes: string[] };
  recoveryCodes.set(actor.user.id, [...codes]);
  return { code: await new Authenticator(secret).next(), secret, recovery_codes: codes };
}

async function disableBody(actor: Actor) {
  const token = actor.credentials.token;
  if (!token) return { recovery_code: "ABCDEFGHJK" };
  if (!recoveryCodes.has(actor.user.id)) {
    recoveryCodes.set(actor.user.id, (await enableMfaFor(token, actor.user.email)).recoveryCodes);
  }
  return { recovery_code: recoveryCodes.get(actor.user.id)?.pop() };
}

export const requests: Record<string, Entry> = {
  generateMfa: { request: () => ({}) },
  enableMfa: { request: async (_namespace, actor) => ({ body: await enableBody(actor) }) },
  disableMfa: { request: async (_namespace, actor) => ({ body: await disableBody(actor) }) },
};
