import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** axe on the page as it is now: no serious or critical violation (the terminal's canvas aside). */
export async function expectNoSeriousA11yViolation(page: Page) {
  const results = await new AxeBuilder({ page }).exclude(".xterm").analyze();
  const serious = results.violations.filter((violation) => ["serious", "critical"].includes(violation.impact ?? ""));
  expect(
    serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`),
  ).toEqual([]);
}
