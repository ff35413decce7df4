/**
 * How late a cron fires: `node --import tsx bench/cron-lateness.ts [firings]`. One in-process server on
 * SQLite (the fake model), one cron made due a moment ahead by setting its next_run_at, as a minute
 * turning would; prints each firing's lateness (the run's created_at minus the due time) and the median.
 * A measurement, not a test.
 */
import { startTestServer, until } from "../packages/server/test/helpers.js";
import { median } from "./measure.js";

const firings = Number(process.argv[2] ?? 10);
const s = await startTestServer({ cronMaxSleepMs: 60_000 });
const { crons, runs } = s.server.context;
const cron = await s.client.crons.create("lead_agent", {
  schedule: "0 9 * * *",
  input: { messages: [{ role: "user", content: "tick" }] },
});
const lateness: number[] = [];
for (let i = 0; i < firings; i++) {
  const due = new Date(Date.now() + 500);
  const before = (await crons.get(cron.cron_id, null))!.last_run_id;
  await crons.update(cron.cron_id, null, { next_run_at: due.toISOString() });
  await s.server.context.announceCrons();
  await until(async () => (await crons.get(cron.cron_id, null))!.last_run_id !== before, 10_000, "the firing");
  const run = (await runs.get((await crons.get(cron.cron_id, null))!.last_run_id!))!;
  lateness.push(Date.parse(run.created_at) - due.getTime());
  await s.client.runs.join(run.thread_id, run.run_id).catch(() => {});
}
console.log(`cron lateness over ${firings} firings (ms): ${lateness.join(", ")}; median ${median(lateness)}`);
await s.close();
