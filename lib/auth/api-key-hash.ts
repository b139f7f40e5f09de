import { createHash } from "node:crypto";

/** Hex SHA-256: how API keys and one-time tokens are stored (they are random, so no salt is needed). */
export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

export const hashApiKey = sha256Hex;
