/**
 * Quotas hold across a cluster: two `deerflow serve` processes on one Postgres database, one user with
 * `concurrent_runs: 1`, `runs_per_day: 2` and `upload_bytes_per_day: 10`, runs and uploads fired at both
 * processes at once. Exactly the allowed number are admitted: each run is counted in its insert
 * transaction under the user's advisory lock, each upload by one conditional update. Skips with the
 * reason when no Postgres is reachable.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { addUser, issueToken } from "../src/auth/accounts.js";
import { createPostgresUserStore } from "../src/auth/postgres-users.js";
import { usageDay } from "../src/auth/types.js";
import { gate, lastUserText, until } from "./helpers.js";
import { startCluster } from "./serve-process.js";

test("two processes, one user at concurrent_runs 1, runs_per_day 2, upload_bytes_per_day 10: fired at both at once, exactly the allowed ones pass", async (t) => {
  const first = gate();
  const second = gate();
  t.after(() => {
    first.open();
    second.open();
  });
  const c = await startCluster(t, async (body) => {
    if (lastUserText(body) === "first") await first.wait;
    if (lastUserText(body) === "second") await second.wait;
    return { content: `echo ${lastUserText(body)}` };
  });
  if (!c) return;
  const [a, b] = await Promise.all([c.start(), c.start()]);

  const pool = new pg.Pool({ connectionString: c.dbUrl });
  const urls = [a.url, b.url];
  try {
    const users = createPostgresUserStore(pool);
    const ann = await addUser(users, { name: "ann" });
    await users.update(ann.id, { quotas: { concurrent_runs: 1, runs_per_day: 2, upload_bytes_per_day: 10 } });
    const { token } = await issueToken(users, ann.id, "api");
    const call = (url: string, path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const threads = await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const response = await call(urls[index % 2]!, "/threads", {});
        return ((await response.json()) as { thread_id: string }).thread_id;
      }),
    );
    /** One run per thread, half on each process, all at once; the statuses and the 429s' details. */
    const fire = async (text: string) => {
      const responses = await Promise.all(
        threads.map((thread, index) =>
          call(urls[index % 2]!, `/threads/${thread}/runs`, {
            assistant_id: "lead_agent",
            input: { messages: [{ role: "user", content: text }] },
          }),
        ),
      );
      const bodies = await Promise.all(responses.map((response) => response.json() as Promise<Record<string, string>>));
      return {
        admitted: bodies.filter((_, index) => responses[index]!.status === 200),
        refused: bodies.filter((_, index) => responses[index]!.status === 429).map((body) => body.detail!),
        retryAfter: responses.filter((response) => response.status === 429).map((r) => r.headers.get("retry-after")),
      };
    };
    const activeRuns = async () =>
      Number(
        (await pool.query("SELECT count(*) AS n FROM server_runs WHERE status IN ('pending', 'running')")).rows[0].n,
      );

    // Round 1: the first run holds its slot (its model call waits), so exactly one of eight starts.
    const one = await fire("first");
    assert.equal(one.admitted.length, 1, JSON.stringify(one));
    assert.equal(one.refused.length, 7, JSON.stringify(one));
    for (const detail of one.refused)
      assert.equal(
        detail,
        "Quota reached: 1 concurrent run (auth.quotas.concurrent_runs, set for you by an admin). Wait for a run to finish, or ask an admin to raise your limit.",
      );
    assert.deepEqual(new Set(one.retryAfter), new Set(["5"]));
    assert.equal(await activeRuns(), 1);
    assert.equal((await users.usage(ann.id, usageDay())).runs, 1);

    first.open();
    await until(async () => (await activeRuns()) === 0, 15_000, "the first run to finish");

    // Round 2: a slot is free and one run of the day is left: again exactly one starts.
    const two = await fire("second");
    assert.equal(two.admitted.length, 1, JSON.stringify(two));
    assert.equal(two.refused.length, 7, JSON.stringify(two));
    assert.equal((await users.usage(ann.id, usageDay())).runs, 2);
    second.open();
    await until(async () => (await activeRuns()) === 0, 15_000, "the second run to finish");

    // The day's runs are spent: a free slot does not help.
    const three = await fire("third");
    assert.equal(three.admitted.length, 0, JSON.stringify(three));
    for (const detail of three.refused)
      assert.match(detail, /^Quota reached: 2 runs per day \(auth\.quotas\.runs_per_day/);
    const runs = Number((await pool.query("SELECT count(*) AS n FROM server_runs")).rows[0].n);
    assert.equal(runs, 2, "no refused run left a row");

    // Uploads of 3 bytes each against 10 bytes a day, eight at once over both processes: three fit.
    const uploads = await Promise.all(
      threads.map((thread, index) => {
        const body = new FormData();
        body.append("files", new Blob(["abc"]), "three.txt");
        return fetch(`${urls[index % 2]}/api/threads/${thread}/uploads`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
          body,
        });
      }),
    );
    assert.deepEqual(uploads.map((response) => response.status).sort(), [200, 200, 200, 429, 429, 429, 429, 429]);
    assert.equal((await users.usage(ann.id, usageDay())).upload_bytes, 9);
  } finally {
    await pool.end();
  }
});
