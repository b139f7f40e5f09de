import { hash, verify } from "@node-rs/argon2";

// Argon2id with the library's defaults (19 MiB, 2 passes), as OWASP recommends.
const argon2id = 2;

export const hashPassword = (password: string) => hash(password, { algorithm: argon2id });

let dummyHash: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. Without a hash (unknown user) it checks a dummy
 * one, so unknown users and wrong passwords take the same time.
 */
export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword("dummy password for timing");
  const target = passwordHash ?? (await dummyHash);
  const matches = await verify(target, password).catch(() => false);
  return matches && passwordHash !== undefined;
}
