import { createHash } from "node:crypto";

export const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex");
