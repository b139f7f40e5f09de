import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { browserProcessorEnv } from "./e2e/browser/support/processor";
import { chromiumLaunchOptions } from "./testing/chromium";

const port = Number(process.env.BROWSER_TEST_PORT ?? 18_930);
// Workers load this file again: the environment carries the one data directory to them (the
// tests read the server's mail outbox there with the CLI).
process.env.BROWSER_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "das-browser-"));
const dataDir = process.env.BROWSER_DATA_DIR;

export default defineConfig({
  testDir: "e2e/browser",
  // The payment processor's stand-in (billing is on, as the cloud edition runs it).
  globalSetup: "./e2e/browser/support/processor.ts",
  timeout: 60_000,
  workers: 1,
  reporter: process.env.CI ? "list" : "line",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: chromiumLaunchOptions,
    screenshot: "only-on-failure",
    // The console's animations (toasts sliding in) end at once, so what a test or axe reads is
    // what a person sees once they settle.
    reducedMotion: "reduce",
  },
  // The first run needs the service without any account: it goes before every other spec.
  projects: [
    { name: "first-run", testMatch: /first-run\.spec\.ts/ },
    { name: "console", testIgnore: /first-run\.spec\.ts/, dependencies: ["first-run"] },
  ],
  webServer: {
    command: "npm start",
    url: `http://127.0.0.1:${port}/api/healthcheck`,
    timeout: 180_000,
    reuseExistingServer: false,
    // SSH_PORT=0: the gateway listens on a port the system chooses (/info tells it). Accounts
    // wait for their activation link, so the mailed-link pages have mails to follow.
    env: {
      PORT: String(port),
      SSH_PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      REQUIRE_EMAIL_CONFIRMATION: "true",
      // The connectors spec dials a Docker engine of its own on the loopback.
      CONNECTOR_ALLOWED_CIDRS: "127.0.0.1/32",
      // The webhooks spec's receiver listens on the loopback; a failed delivery is tried again after 1 s.
      WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
      WEBHOOK_RETRY_SECONDS: "1",
      // Playwright's request client keeps idle connections without regard to the server's
      // Keep-Alive hint, and a request it sends on one just as the server closes it fails. Like a
      // proxy in front of the service (docs/scaling.md), it gets a server that outlasts it: no test
      // runs 65 s.
      HTTP_KEEP_ALIVE_SECONDS: "65",
      ...browserProcessorEnv,
    },
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
