import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * axe on the page as it is now: no serious or critical violation (the terminal's canvas aside).
 * The page's title comes with its streamed metadata, which can land after the content a test
 * waited for: axe then found no title (a CI run failed on it), so the title is waited for first.
 */
export async function expectNoSeriousA11yViolation(page: Page) {
  await expect(page).toHaveTitle(/\S/);
  const results = await new AxeBuilder({ page }).exclude(".xterm").analyze();
  const serious = results.violations.filter((violation) => ["serious", "critical"].includes(violation.impact ?? ""));
  expect(
    serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`),
  ).toEqual([]);
}
