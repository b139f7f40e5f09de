import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: [
      "lib/**/*.test.ts",
      "components/**/*.test.ts",
      "agent/**/*.test.ts",
      "e2e/api/**/*.test.ts",
      "e2e/ssh/**/*.test.ts",
    ],
    globalSetup: ["testing/global-setup.ts"],
    // Tests start real servers and processes, which queue for the CPU on a busy machine
    // (testing/start-slots.ts): these limits only catch hangs.
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
