import { execFileSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../../..");

/** `npm run cli -- ARGS` on the browser-test server's data (through the running server). */
export const cli = (...args: string[]) =>
  execFileSync(path.join(root, "node_modules/.bin/tsx"), ["lib/cli/main.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: process.env.BROWSER_DATA_DIR, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });

/**
 * The link to `pagePath` in the newest mail to `email` of the server's outbox (no SMTP server:
 * mails are kept there), as a path with its query.
 */
export function mailedLink(email: string, pagePath: string) {
  const line = cli("mail", "list")
    .split("\n")
    .find((entry) => entry.includes(email)); // newest first
  const shown = cli("mail", "show", line?.split(/\s+/)[0] ?? "");
  const link = new URL(shown.split(/\s+/).find((word) => word.includes(`${pagePath}?`)) ?? "");
  return `${link.pathname}${link.search}`;
}
