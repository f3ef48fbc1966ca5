/** Runs the axe-core accessibility checks (WCAG 2.1 A and AA, and best practices) in a page. */
import axe from "axe-core";
import type { Page } from "playwright-core";

interface AxeResult {
  violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
}

/**
 * One line per violation found in the page as it is now; empty when there is none. With
 * `impacts`, only the violations of those impacts (axe's minor, moderate, serious, critical).
 */
export async function accessibilityViolations(
  page: Page,
  impacts?: readonly string[],
): Promise<string[]> {
  // page.evaluate runs over the DevTools protocol, so the page's CSP does not stop the injection.
  await page.evaluate(axe.source);
  const result = await page.evaluate<AxeResult>(
    `axe.run(document, { runOnly: { type: "tag", values: ` +
      `["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } })`,
  );
  return result.violations.filter((v) => !impacts || impacts.includes(v.impact)).map((v) =>
    `${v.id} (${v.impact}): ${v.help} at ${
      v.nodes.slice(0, 5).map((n) => n.target.join(" ")).join(", ")
    }${v.nodes.length > 5 ? ` and ${v.nodes.length - 5} more` : ""}`
  );
}
