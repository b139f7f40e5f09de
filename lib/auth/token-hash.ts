import { createHash } from "node:crypto";

/**
 * Hex SHA-256: how API keys, one-time tokens and terminal tickets are stored (they are random,
 * so no salt is needed, and a fast hash keeps their lookup a single indexed read).
 */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
