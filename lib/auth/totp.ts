import { generateSecret, generateURI, verify } from "otplib";

/** Time-based one-time passwords as authenticator apps use them: SHA-1, 6 digits, 30 s. */
export const newTotpSecret = () => generateSecret();

export const totpUri = (secret: string, issuer: string, account: string) =>
  generateURI({ issuer, label: account, secret });

/**
 * The time step a code belongs to when it is right for the previous, current or next step
 * (clock drift) and later than `afterStep` (so no code works twice); undefined otherwise.
 */
export async function matchTotp(secret: string, code: string, afterStep: number | null): Promise<number | undefined> {
  const result = await verify({
    secret,
    token: code,
    epochTolerance: 30,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  }).catch(() => undefined);
  return result?.valid && "timeStep" in result ? result.timeStep : undefined;
}
