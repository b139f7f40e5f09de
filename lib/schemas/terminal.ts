import { z } from "zod";
import { deviceUid } from "./devices";

const signatureChars = 4096;

/**
 * `POST /ws/ssh`: the device, the local user, and exactly one credential: a password, a private
 * key, or a public key's fingerprint with a signature of the local user name made by its private
 * key (what ShellHub's UI sends; the private key never leaves the browser).
 */
export const terminalTokenBody = z
  .object({
    device: deviceUid,
    username: z.string().min(1, "required").max(255, "at most 255 characters"),
    password: z.string().min(1, "required").max(1024, "at most 1024 characters").optional(),
    private_key: z.string().min(1, "required").max(16384, "at most 16384 characters").optional(),
    fingerprint: z
      .string()
      .regex(/^([0-9a-fA-F]{2}:){15}[0-9a-fA-F]{2}$/, "expected an MD5 fingerprint: 16 colon-separated hex pairs")
      .transform((fingerprint) => fingerprint.toLowerCase())
      .optional(),
    signature: z
      .string()
      .min(1, "required")
      .max(signatureChars, `at most ${signatureChars} characters`)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, "expected base64")
      .optional(),
  })
  .refine((body) => (body.fingerprint === undefined) === (body.signature === undefined), {
    message: "give fingerprint and signature together",
    path: ["signature"],
  })
  .refine(
    (body) =>
      [body.password, body.private_key, body.fingerprint].filter((credential) => credential !== undefined).length === 1,
    { message: "give either password, private_key, or fingerprint and signature", path: ["password"] },
  );

export const terminalTokenObject = z.object({ token: z.string() });

export const terminalQuery = z.object({
  token: z.string().min(1),
  cols: z.coerce.number().int().min(1).max(1000).default(80),
  rows: z.coerce.number().int().min(1).max(1000).default(24),
});

const terminalSize = { cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) };

/** A text message of the binary protocol: the terminal's new size. */
export const terminalResize = z.object({ type: z.literal("resize"), ...terminalSize });

/**
 * A text message of ShellHub's protocol: `{"kind":1,"data":[bytes]}` typed input (ShellHub's UI
 * sends the bytes; later UIs send a string), `{"kind":2,"data":{"cols":..,"rows":..}}` a resize.
 */
export const shellHubMessage = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal(1),
    data: z.union([z.array(z.number().int().min(0).max(255)), z.string()]),
  }),
  z.object({ kind: z.literal(2), data: z.object(terminalSize) }),
]);
