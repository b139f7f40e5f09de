import { z } from "zod";
import { accountIdentifier } from "./users";

const totpCode = z.string().regex(/^\d{6}$/, "6 digits");
/** Recovery and reset codes: 10 letters and digits, typed by a person (case and blanks ignored). */
const typedCode = z.string().trim().min(1).max(64);

export const mfaCredentials = z.object({
  link: z.string(),
  secret: z.string(),
  recovery_codes: z.array(z.string()),
  /** The link as a QR code, a PNG data URL for the console. */
  qr_code: z.string(),
});

export const authMfaBody = z.object({ token: z.uuid(), code: totpCode });

export const recoverMfaBody = z.object({ identifier: accountIdentifier, recovery_code: typedCode });

export const requestMfaResetBody = z.object({ identifier: accountIdentifier });

export const enableMfaBody = z.object({
  code: totpCode,
  secret: z.string().min(1).max(128),
  recovery_codes: z.array(typedCode).min(1).max(20),
});

export const disableMfaBody = z
  .object({ code: totpCode.optional(), recovery_code: typedCode.optional() })
  .refine((body) => (body.code === undefined) !== (body.recovery_code === undefined), {
    message: "give either code or recovery_code",
    path: ["code"],
  });

export const resetMfaParams = z.object({ "user-id": z.uuid() });

export const resetMfaBody = z.object({ main_email_code: typedCode, recovery_email_code: typedCode });
