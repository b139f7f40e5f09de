import { ValidationError } from "../errors";
import { KeyLineProblem, md5Fingerprint, publicKeyOfData } from "../ssh-public-key";

/**
 * Checks the `data` of a public key, base64 of one OpenSSH line `TYPE BLOB [COMMENT]`, and returns
 * its fingerprint: the MD5 of the blob as 16 colon-separated lower-case hex pairs, as
 * `ssh-keygen -l -E md5` shows it. The rules are lib/ssh-public-key.ts's (the console checks the
 * same); a refused key is a 400 on `data`.
 */
export function sshKeyFingerprint(data: string): string {
  try {
    return md5Fingerprint(publicKeyOfData(data).blob);
  } catch (error) {
    if (error instanceof KeyLineProblem) throw new ValidationError([{ field: "data", message: error.message }]);
    throw error;
  }
}

/** The wire blob of a stored key's `data` (checked when it was stored). */
export const keyBlobOfData = (data: string) =>
  Buffer.from(
    Buffer.from(data, "base64")
      .toString("utf8")
      .trim()
      .split(/[ \t]+/)[1] ?? "",
    "base64",
  );
