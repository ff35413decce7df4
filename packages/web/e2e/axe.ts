/**
 * axe-core in a page: its source is evaluated over the DevTools protocol (the app's
 * Content-Security-Policy refuses inline script tags), and the serious and critical violations come
 * back one line each, so a test can collect them from several pages and assert none at the end.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string }[];
}

/** The serious and critical axe violations on the page now, one line each. */
export async function seriousViolations(page: Page, where: string): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Violation[] }> } })
      .axe;
    return (await axe.run(document)).violations;
  });
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${where}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes.map((node) => `${JSON.stringify(node.target)} ${node.html.slice(0, 120)}`).join(" | ")}`,
    );
}
