/**
 * The system's Chromium (Debian package), never a downloaded browser, with the flags of a quiet
 * headless run: how the browser tests (playwright.config.ts) and the console benchmark launch it.
 */
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};
