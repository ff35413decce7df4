/**
 * The isolation matrix (accounts, issue "users"): user B attempts every route against user A's thread,
 * runs, files, tokens and account, on SQLite and on Postgres, through the official SDK where it has a
 * method and plain fetch for DeerFlow's gateway routes. Every attempt must look exactly like a missing
 * thread or run (404, or an empty list), never a 403 that confirms it exists and never A's data; A's
 * data must be unchanged afterwards, and A's own identical requests must succeed (so a 404 proves
 * refusal, not a wrong id). Then: every registered route is reached by the matrix or allow-listed with
 * a reason, admin routes are 403 for B, and no token or password is stored or logged in plaintext.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import pg from "pg";
import { collect, startTestServer } from "./helpers.js";
import { ATTEMPTS, at, json, REPORT, refused, say } from "./isolation-attempts.js";
import { ADMIN_ONLY, NOT_PER_USER, PENDING, routeOf } from "./isolation-routes.js";
import { A_REPORT, A_UPLOAD, type Recorded, type Scene, STREAM_MODES, startScene } from "./isolation-scene.js";

/** What A can see of A's data; compared before and after B's attempts. */
async function snapshotOfA(s: Scene): Promise<unknown> {
  const { a, ids } = s;
  const thread = await a.client.threads.get(ids.thread);
  const state = await a.client.threads.getState(ids.thread);
  const history = await a.client.threads.getHistory(ids.thread, { limit: 100 });
  const runs = await a.client.runs.list(ids.thread, { limit: 100 });
  const uploads: Record<string, unknown> = {};
  for (const id of [ids.thread, "search", "count"]) {
    const { files } = (await (await a.fetch(`/threads/${id}/uploads/list`)).json()) as {
      files: Array<{ filename: string; size: number }>;
    };
    uploads[id] = files.map((file) => [file.filename, file.size]);
  }
  const { tokens } = (await (await a.fetch("/v1/auth/tokens")).json()) as { tokens: Array<{ id: string }> };
  const crons = await a.client.crons.search({ limit: 100 });
  const tasks = (await (await a.fetch("/scheduled-tasks")).json()) as Array<Record<string, unknown>>;
  const assistant = await a.client.assistants.get(ids.agentAssistant);
  const feedback = await (await a.fetch(`/threads/${ids.thread}/runs/${ids.finishedRun}/feedback`)).json();
  const item = await a.client.store.getItem(["notes", "alpha"], "plan");
  return {
    agents: await (await a.fetch("/agents")).json(),
    assistant: [assistant.version, assistant.context],
    profile: await (await a.fetch("/user-profile")).json(),
    feedback,
    store: [item?.value, (await a.client.store.listNamespaces()).namespaces],
    metadata: thread.metadata,
    values: state.values,
    checkpoints: history.map((entry) => entry.checkpoint.checkpoint_id),
    runs: runs.map((run) => [run.run_id, run.status]),
    uploads,
    report: await (await a.fetch(`/threads/${ids.thread}/artifacts${REPORT}`)).text(),
    tokens: tokens.map((token) => token.id),
    crons: crons.map((cron) => [cron.cron_id, cron.schedule, cron.enabled, cron.payload]),
    tasks: tasks.map((task) => [task.id, task.title, task.status, task.schedule_spec]),
  };
}

/** A's own requests for what B was refused: they answer, so B's 404s were refusals, not wrong ids. */
const CONTROLS: Array<[string, (s: Scene) => Promise<void>]> = [
  [
    "A's agent: get, assistants, and a run whose prompt carries A's soul",
    async ({ a, t, ids }) => {
      assert.equal((await a.fetch(`/agents/${ids.agent}`)).status, 200);
      assert.equal((await a.client.assistants.get(ids.agentAssistant)).name, ids.agent);
      await a.client.assistants.getVersions(ids.agentAssistant);
      const thread = (await a.client.threads.create()).thread_id;
      await a.client.runs.wait(thread, ids.agentAssistant, { input: say("alpha agent run") });
      const body = t.fake.requests.at(-1)!;
      assert.ok(JSON.stringify(body.messages).includes("alpha soul"), "A's soul reached A's run");
    },
  ],
  [
    "thread, state, checkpoint and history",
    async ({ a, ids }) => {
      assert.equal((await a.client.threads.get(ids.thread)).metadata?.project, "alpha-secret");
      await a.client.threads.getState(ids.thread, ids.checkpoint);
      await a.client.threads.getState(ids.thread, at(ids.thread, ids.checkpoint));
      assert.ok((await a.client.threads.getHistory(ids.thread)).length > 0);
      assert.equal((await a.client.threads.get("search")).thread_id, "search");
    },
  ],
  [
    "runs by thread and by id, join and every stream mode on replay",
    async ({ a, ids }) => {
      assert.equal((await a.client.runs.get(ids.thread, ids.finishedRun)).status, "success");
      await a.client.runs.join(ids.thread, ids.finishedRun);
      const run = (await (await a.fetch(`/runs/${ids.finishedRun}`)).json()) as { status: string };
      assert.equal(run.status, "success");
      assert.equal((await a.fetch(`/runs/${ids.tempRun}/join`)).status, 200);
      for (const mode of STREAM_MODES) {
        const parts = await collect(
          a.client.runs.joinStream(ids.thread, ids.finishedRun, { lastEventId: "-1", streamMode: [mode] }),
        );
        assert.ok(parts.length > 0, `A replays the run in stream mode ${mode}`);
      }
    },
  ],
  [
    "files, messages, token usage and the replay preparations",
    async ({ a, ids }) => {
      assert.equal(await (await a.fetch(`/threads/${ids.thread}/artifacts${REPORT}`)).text(), A_REPORT);
      assert.equal(
        await (await a.fetch(`/threads/${ids.thread}/artifacts/mnt/user-data/uploads/notes.txt`)).text(),
        A_UPLOAD,
      );
      assert.equal(
        await (await a.fetch("/threads/search/artifacts/mnt/user-data/uploads/search.txt")).text(),
        A_UPLOAD,
      );
      assert.equal((await a.fetch(`/threads/${ids.thread}/uploads/limits`)).status, 200);
      const page = (await (await a.fetch(`/threads/${ids.thread}/messages/page`)).json()) as { data: unknown[] };
      assert.ok(page.data.length > 0);
      assert.equal((await a.fetch(`/threads/${ids.thread}/token-usage`)).status, 200);
      const state = await a.client.threads.getState<{ messages: Array<{ id: string; type: string }> }>(ids.thread);
      const latest = state.values.messages.findLast((message) => message.type === "ai")!;
      const human = state.values.messages.findLast((message) => message.type === "human")!;
      const regenerate = await a.fetch(
        `/threads/${ids.thread}/runs/regenerate/prepare`,
        json({ message_id: latest.id }),
      );
      assert.equal(regenerate.status, 200, await regenerate.text());
      const edit = await a.fetch(
        `/threads/${ids.thread}/runs/edit-regenerate/prepare`,
        json({ human_message_id: human.id, replacement_text: "hold on, edited" }),
      );
      assert.equal(edit.status, 200, await edit.text());
    },
  ],
  [
    "A's feedback, run events, suggestions, export, branch, store item and state patch (what B was refused)",
    async ({ a, ids }) => {
      const base = `/threads/${ids.thread}/runs/${ids.finishedRun}`;
      const stats = (await (await a.fetch(`${base}/feedback/stats`)).json()) as { positive: number };
      assert.equal(stats.positive, 1);
      assert.equal((await a.fetch(`${base}/events`)).status, 200);
      const suggestions = await a.fetch(
        `/threads/${ids.thread}/suggestions`,
        json({ messages: [{ role: "user", content: "x" }], n: 1 }),
      );
      assert.equal(suggestions.status, 200, await suggestions.text());
      assert.match(await (await a.fetch(`/threads/${ids.thread}/export?format=md`)).text(), /write the report/);
      const branch = await a.fetch(`/threads/${ids.thread}/branches`, json({ message_id: ids.aiMessage }));
      assert.equal(branch.status, 200, await branch.text());
      assert.deepEqual((await a.client.store.getItem(["notes", "alpha"], "plan"))?.value, {
        text: "alpha-secret plan",
      });
      await a.client.threads.patchState(ids.thread, { reviewed: true });
      assert.equal((await a.fetch(`${base}/feedback/${ids.feedback}`, { method: "DELETE" })).status, 200);
    },
  ],
  [
    "A still signs in with A's password and A's token still works",
    async ({ t, a }) => {
      const login = await fetch(`${t.url}/api/v1/auth/login/local`, json({ username: a.name, password: a.password }));
      assert.equal(login.status, 200);
      assert.equal(((await (await a.fetch("/v1/auth/me")).json()) as { id: string }).id, a.id);
    },
  ],
  [
    "the admin owns the thread the CLI wrote",
    async ({ root, ids }) => {
      const state = await root.client.threads.getState<{ messages: unknown[] }>(ids.cliThread);
      assert.equal(state.values.messages.length, 2);
    },
  ],
  [
    "the admin manages users (the routes B got 403 from)",
    async ({ root, a }) => {
      const response = await root.fetch("/v1/admin/users");
      assert.equal(response.status, 200);
      const { users } = (await response.json()) as { users: Array<{ id: string; admin: boolean }> };
      assert.equal(users.find((user) => user.id === a.id)?.admin, false);
    },
  ],
  [
    "an admin is not exempt: the admin gets 404 for A's thread too",
    ({ root, ids }) => refused(root.client.threads.get(ids.thread)),
  ],
  [
    "A changes A's cron (the cron routes B was refused)",
    async ({ a, ids }) => {
      assert.equal(await a.client.crons.count({ threadId: ids.thread }), 2, "A's cron and A's scheduled task");
      const updated = await a.client.crons.update(ids.cron, { metadata: { checked: true } });
      assert.deepEqual(updated.metadata, { checked: true });
    },
  ],
  [
    "A reads and lists A's scheduled task (the task routes B was refused)",
    async ({ a, ids }) => {
      const task = (await (await a.fetch(`/scheduled-tasks/${ids.task}`)).json()) as { title: string };
      assert.equal(task.title, "alpha task");
      const onThread = (await (await a.fetch(`/threads/${ids.thread}/scheduled-tasks`)).json()) as Array<{
        id: string;
      }>;
      assert.deepEqual(
        onThread.map((one) => one.id),
        [ids.task],
      );
      const runs = await a.fetch(`/scheduled-tasks/${ids.task}/runs`);
      assert.equal(runs.status, 200);
    },
  ],
  [
    "A runs on A's thread (the run routes B was refused)",
    async ({ a, ids }) => {
      const result = (await a.client.runs.wait(ids.thread, "lead_agent", { input: say("alpha again") })) as {
        messages: unknown[];
      };
      assert.ok(result.messages.length > 0);
    },
  ],
];

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Text of every event of the runs' logs. */
async function eventText(s: Scene, runIds: string[]): Promise<string> {
  const out: string[] = [];
  for (const runId of runIds) {
    const controller = new AbortController();
    for await (const event of s.t.server.context.events.follow(runId, "-1", controller.signal))
      out.push(JSON.stringify(event));
  }
  return out.join("\n");
}

/** Rows of the account and run tables of a Postgres database, as text. */
async function postgresRows(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: string[] = [];
    for (const table of ["deerflow_tokens", "deerflow_users", "server_runs", "run_events", "server_threads"]) {
      const { rows } = await client.query(`SELECT row_to_json(t)::text AS row FROM ${table} t`);
      assert.ok(rows.length > 0 || table === "run_events", `${table} has rows`);
      out.push(...rows.map((row: { row: string }) => row.row));
    }
    return out.join("\n");
  } finally {
    await client.end();
  }
}

/** What the route-enumeration test reads: the SQLite run's recorded requests. */
let coverage: Recorded[] | undefined;

async function runMatrix(t: TestContext, backend: "sqlite" | "postgres"): Promise<void> {
  let yaml = "";
  let databaseUrl: string | undefined;
  if (backend === "postgres") {
    const db = await testDatabase();
    if ("skip" in db) return t.skip(db.skip);
    t.after(() => db.drop());
    databaseUrl = db.url;
    yaml = `database: {backend: postgres, url: '${db.url}'}`;
  }
  const s = await startScene(yaml);
  try {
    const before = await snapshotOfA(s);
    await t.test("A's finished stateless run took its temporary thread's files with it", () => {
      assert.equal(fs.existsSync(path.join(s.t.home.path, "threads", s.ids.tempThread)), false);
    });
    for (const [name, attempt] of ATTEMPTS) await t.test(`B: ${name}`, () => attempt(s));
    await t.test("A's data is unchanged after B's attempts", async () => {
      assert.deepEqual(await snapshotOfA(s), before);
    });
    await t.test("A's run in flight was not cancelled by B", async () => {
      s.release();
      await s.a.client.runs.join(s.ids.thread, s.ids.heldRun);
      assert.equal((await s.a.client.runs.get(s.ids.thread, s.ids.heldRun)).status, "success");
    });
    for (const [name, control] of CONTROLS) await t.test(`A (control): ${name}`, () => control(s));
    await t.test("no token or password in plaintext in the database, files, logs or event logs", async () => {
      const runIds = [s.ids.finishedRun, s.ids.heldRun, s.ids.tempRun];
      const places: Array<[string, Buffer]> = filesUnder(s.t.home.path).map((file) => [file, fs.readFileSync(file)]);
      if (backend === "sqlite")
        assert.ok(
          places.some(([file]) => file.endsWith("checkpoints.sqlite")),
          "the SQLite database is among the files read",
        );
      places.push(["the server log", Buffer.from(s.t.logs.join("\n"))]);
      places.push(["the event logs", Buffer.from(await eventText(s, runIds))]);
      if (databaseUrl) places.push(["the Postgres rows", Buffer.from(await postgresRows(databaseUrl))]);
      assert.ok(s.secrets.size >= 10);
      for (const [what, secret] of s.secrets) {
        for (const [where, bytes] of places) assert.ok(!bytes.includes(secret), `${what} is in plaintext in ${where}`);
      }
    });
    if (backend === "sqlite") coverage = [...s.recorded];
  } finally {
    s.release();
    await s.t.close();
  }
}

test("isolation matrix on SQLite", (t) => runMatrix(t, "sqlite"));
test("isolation matrix on Postgres", (t) => runMatrix(t, "postgres"));

test("every registered route is in the matrix, admin-only (403 for B), allow-listed or pending", async (t) => {
  const server = await startTestServer();
  let registered: Array<{ method: string; path: string }>;
  try {
    registered = server.server.app.routes.map((route) => ({ method: route.method, path: route.path }));
  } finally {
    await server.close();
  }
  const unique = (list: string[]) => [...new Set(list)].sort();
  const endpoints = registered.filter((route) => route.method !== "ALL"); // ALL: middleware (CORS, auth, guard)
  const api = unique(endpoints.filter((r) => r.path.startsWith("/api/")).map((r) => `${r.method} ${r.path.slice(4)}`));
  const root = unique(endpoints.filter((r) => !r.path.startsWith("/api/")).map((r) => `${r.method} ${r.path}`));
  // The API is mounted twice; what is only at `/` is the web app's static files, the same for everyone.
  const webApp = root.filter((route) => !api.includes(route));
  assert.ok(
    webApp.every((route) => /^(GET|HEAD) \//.test(route)),
    `unexpected root-only routes: ${webApp}`,
  );
  assert.deepEqual(
    api.filter((route) => !root.includes(route)),
    [],
    "every API route is at / too",
  );

  for (const listed of [...Object.keys(NOT_PER_USER), ...ADMIN_ONLY, ...Object.keys(PENDING)])
    assert.ok(api.includes(listed), `listed route ${listed} is not registered any more: update the lists`);
  for (const [route, reason] of Object.entries(PENDING)) await t.test(route, { todo: reason }, () => {});

  assert.ok(coverage, "the SQLite matrix must run first in this file (it records B's requests)");
  const reached = new Map<string, number[]>();
  for (const request of coverage) {
    const route = routeOf(api, request.method, request.path);
    if (route) reached.set(route, [...(reached.get(route) ?? []), request.status]);
  }
  const problems: string[] = [];
  for (const route of api) {
    if (NOT_PER_USER[route] || PENDING[route]) continue;
    const statuses = reached.get(route);
    if (!statuses) problems.push(`${route}: not in the matrix`);
    else if (ADMIN_ONLY.has(route) && !statuses.every((status) => status === 403))
      problems.push(`${route}: admin-only, but B got ${statuses}`);
    else if (!ADMIN_ONLY.has(route) && route.includes("/:") && !statuses.includes(404))
      problems.push(`${route}: B was never refused with 404 (got ${statuses})`);
    else if (statuses.includes(403) && !ADMIN_ONLY.has(route))
      problems.push(`${route}: B got a 403, which confirms the thing exists`);
  }
  assert.deepEqual(problems, []);
});
