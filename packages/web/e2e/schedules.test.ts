/**
 * The scheduled tasks page end to end against a real `deerflow serve` (demo model): a task created
 * from a preset in the browser's time zone is listed with the next run the crons API reports; pause and
 * resume reach the API; made due (its next_run_at set to now in the server's SQLite file, as
 * packages/server/test/crons.test.ts does in-process; the scheduler looks every 10 s), it fires, the
 * page shows the last run's status (axe-core finds no serious violation on it) and opens the thread the
 * firing ran on; delete asks first.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { seriousViolations } from "./axe.js";
import { browserForFile, serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
browserForFile();
const server = serveForFile(skip);

const PROMPT = "Write a short note about deer";

interface CronJson {
  cron_id: string;
  schedule: string;
  timezone: string;
  enabled: boolean;
  next_run_date: string | null;
  on_run_completed: string;
}

/** The crons as the API lists them. */
async function crons(): Promise<CronJson[]> {
  const response = await fetch(`${server.url}/api/runs/crons/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  return (await response.json()) as CronJson[];
}

/** Makes the cron due now in the server's store; its scheduler's next look fires it. */
function makeDue(cronId: string): void {
  const db = new Database(path.join(server.home, "checkpoints.sqlite"));
  try {
    db.pragma("busy_timeout = 5000");
    db.prepare("UPDATE deerflow_crons SET next_run_at = ? WHERE cron_id = ?").run(new Date().toISOString(), cronId);
  } finally {
    db.close();
  }
}

test("scheduled tasks: create from a preset, next run listed, pause, resume, a firing's thread, delete", {
  skip,
}, async () => {
  await withPage("schedules", async (page) => {
    await page.goto(server.url);
    await page.getByRole("link", { name: "Scheduled tasks" }).click();
    await page.waitForURL(/\/\?page=schedules$/);
    await page.getByText("No scheduled tasks yet.").waitFor();

    const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    assert.equal(await page.getByLabel("Time zone").inputValue(), browserZone);
    await page.getByLabel("Prompt").fill(PROMPT);
    await page.getByLabel("Repeat").selectOption({ label: "Every day at 8:00" });
    assert.equal(await page.getByLabel("Cron schedule").inputValue(), "0 8 * * *");
    const preview = page.getByRole("list", { name: "Next runs" }).locator("time");
    assert.equal(await preview.count(), 5);
    const firstPreviewed = await preview.first().getAttribute("datetime");
    await page.getByRole("button", { name: "Create task" }).click();

    // Listed with the API's next run, which the preview had predicted; a reload stays on the page.
    const row = page.getByTestId("task-row");
    await row.getByText("Every day at 8:00").waitFor();
    const [cron] = await crons();
    assert.ok(cron);
    assert.deepEqual([cron.schedule, cron.timezone, cron.on_run_completed], ["0 8 * * *", browserZone, "keep"]);
    assert.equal(cron.next_run_date, firstPreviewed);
    await page.reload();
    const nextRun = row.getByTestId("next-run").locator("time");
    assert.equal(await nextRun.getAttribute("datetime"), cron.next_run_date);
    await row.getByTestId("last-run").getByText("Never").waitFor();

    await page.getByRole("button", { name: `Pause ${PROMPT}` }).click();
    await row.getByTestId("next-run").getByText("Paused").waitFor();
    assert.equal((await crons())[0]?.enabled, false);
    await page.getByRole("button", { name: `Resume ${PROMPT}` }).click();
    await nextRun.waitFor();
    assert.equal((await crons())[0]?.enabled, true);

    makeDue(cron.cron_id);
    const lastRun = row.getByTestId("last-run");
    await lastRun.getByText("success").waitFor({ timeout: 60_000 });
    assert.deepEqual(await seriousViolations(page, "scheduled tasks"), []);
    await lastRun.getByRole("link", { name: "Open thread" }).click();
    await page.waitForURL(/\/threads\/[0-9a-f-]+$/);
    await page.getByTestId("msg-human").filter({ hasText: PROMPT }).waitFor();
    await page.getByText("I wrote a note about your task").waitFor();

    await page.getByRole("link", { name: "Scheduled tasks" }).click();
    await page.getByRole("button", { name: `Delete ${PROMPT}` }).click();
    await page.getByRole("button", { name: "Keep" }).click();
    assert.equal((await crons()).length, 1);
    await page.getByRole("button", { name: `Delete ${PROMPT}` }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByText("No scheduled tasks yet.").waitFor();
    assert.deepEqual(await crons(), []);
  });
});
