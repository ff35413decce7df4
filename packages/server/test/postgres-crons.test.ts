/**
 * Crons on a cluster: two `deerflow serve` processes on one Postgres database fire each due time of a
 * cron exactly once. The test makes the cron due by setting next_run_at to the database's now() and
 * sending the crons notification (as a turning minute and a change would), kills one process with
 * SIGKILL part-way through, and leaves a claim as a process that died right after claiming would. Every
 * round must add exactly one run, never zero and never two.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { until } from "./helpers.js";
import { human, startCluster } from "./serve-process.js";

test("two processes on one database: each due time fires once, through a kill -9 and a claim left by a dead process", async (t) => {
  const c = await startCluster(t, async () => ({ content: "fired" }));
  if (!c) return;
  const [a, b] = await Promise.all([c.start(), c.start()]);
  // The banner's last line can reach us just after the "listening" line the start waited for.
  await until(() => [a, b].every((p) => /crons: 0 scheduled/.test(p.out.stderr)), 10_000, "both banners' crons line");
  const pool = new pg.Pool({ connectionString: c.dbUrl, max: 2 });
  // The cluster's teardown drops the database, ending these connections if the test failed first.
  pool.on("error", () => {});
  t.after(() => pool.end().catch(() => {}));

  const cron = await a.client.crons.create("lead_agent", {
    schedule: "0 9 * * *",
    ...human("scheduled"),
    onRunCompleted: "keep",
  });
  const runsOfCron = async () =>
    (
      await pool.query<{ run_id: string; status: string }>(
        "SELECT run_id, status FROM server_runs WHERE metadata->>'cron_id' = $1",
        [cron.cron_id],
      )
    ).rows;
  const released = async () =>
    (
      await pool.query<{ ok: boolean }>(
        "SELECT claim_token IS NULL AND next_run_at > now() AS ok FROM deerflow_crons WHERE cron_id = $1",
        [cron.cron_id],
      )
    ).rows[0]?.ok === true;
  /**
   * One due time: made due, fired by whichever process claims it, released with its next due time. The
   * previous firing's run has ended first (a due time while it runs would be skipped, by design).
   */
  const round = async (expected: number, claimedByTheDead = false) => {
    await until(
      async () => (await runsOfCron()).every((run) => run.status === "success"),
      20_000,
      `the runs before firing ${expected} to finish`,
    );
    await pool.query(
      claimedByTheDead
        ? "UPDATE deerflow_crons SET next_run_at = now(), claim_token = 'dead', claim_expires = now() + interval '1 second' WHERE cron_id = $1"
        : "UPDATE deerflow_crons SET next_run_at = now() WHERE cron_id = $1",
      [cron.cron_id],
    );
    await pool.query("SELECT pg_notify('deerflow_crons', '')");
    await until(async () => (await runsOfCron()).length >= expected, 20_000, `firing ${expected}`);
    await until(released, 20_000, `the cron's release after firing ${expected}`);
    assert.equal((await runsOfCron()).length, expected, `firing ${expected} started exactly one run`);
  };

  for (let fired = 1; fired <= 3; fired++) await round(fired);
  a.child.kill("SIGKILL");
  await a.exited;
  for (let fired = 4; fired <= 5; fired++) await round(fired);
  await round(6, true);

  const runs = await runsOfCron();
  assert.equal(new Set(runs.map((run) => run.run_id)).size, 6);
  const [shown] = await b.client.crons.search();
  assert.equal((shown as unknown as { skipped: number }).skipped, 0);
  assert.ok(runs.some((run) => run.run_id === (shown as unknown as { last_run_id: string }).last_run_id));
  await pool.end();
});
