/**
 * B's attempts of the isolation matrix: every route, against A's ids, through the SDK where it has a
 * method and plain fetch for DeerFlow's gateway routes. Each must look like a missing thread or run
 * (404, or an empty answer), never a 403 that confirms it exists and never A's data. Admin routes are
 * the exception: they are 403 for B.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { collect } from "./helpers.js";
import { A_REPORT, type Scene, STREAM_MODES, uploadForm } from "./isolation-scene.js";

export const REPORT = "/mnt/user-data/outputs/report.md";
const UNKNOWN = "0190f000-0000-7000-8000-000000000000";
export const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
export const json = (body: unknown, method = "POST"): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
/** A checkpoint reference as the SDK types it. */
export const at = (threadId: string, checkpointId: string) => ({
  thread_id: threadId,
  checkpoint_ns: "",
  checkpoint_id: checkpointId,
  checkpoint_map: null,
});
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** An SDK call (or stream) of B's must fail with HTTP 404, never answer. */
export async function refused(call: Promise<unknown> | AsyncIterable<unknown>): Promise<void> {
  let answer: unknown;
  try {
    answer = Symbol.asyncIterator in call ? await collect(call as AsyncIterable<unknown>) : await call;
  } catch (error) {
    assert.equal((error as { status?: number }).status, 404, `expected 404, got: ${(error as Error).message}`);
    return;
  }
  assert.fail(`expected 404, but it answered: ${JSON.stringify(answer).slice(0, 300)}`);
}

/** A fetch of B's must be a 404. */
async function missing(response: Promise<Response>): Promise<void> {
  const got = await response;
  const text = await got.text();
  assert.equal(got.status, 404, `expected 404, got ${got.status}: ${text.slice(0, 300)}`);
  assert.ok(!text.includes("alpha"), `the 404 carries A's data: ${text.slice(0, 300)}`);
}

/** B's request to an admin route must be a 403. */
async function forbidden(response: Promise<Response>): Promise<void> {
  const got = await response;
  const text = await got.text();
  assert.equal(got.status, 403, `expected 403 for a non-admin, got ${got.status}: ${text.slice(0, 300)}`);
  assert.match(text, /Only an admin/);
}

/** B's attempts, in order (destructive ones included: A's data is compared afterwards). */
export const ATTEMPTS: Array<[string, (s: Scene) => Promise<void>]> = [
  // Custom agents (DeerFlow's routes) and the assistants over them: A's agent is missing for B.
  ["GET /agents/{A's agent}", (s) => missing(s.b.fetch(`/agents/${s.ids.agent}`))],
  ["PUT /agents/{A's agent}", (s) => missing(s.b.fetch(`/agents/${s.ids.agent}`, json({ soul: "bravo" }, "PUT")))],
  ["DELETE /agents/{A's agent}", (s) => missing(s.b.fetch(`/agents/${s.ids.agent}`, { method: "DELETE" }))],
  [
    "GET /agents lists none of A's; check says A's name is free for B; B's own agent of that name is B's",
    async (s) => {
      assert.deepEqual(await (await s.b.fetch("/agents")).json(), { agents: [] });
      assert.deepEqual(await (await s.b.fetch(`/agents/check?name=${s.ids.agent}`)).json(), {
        available: true,
        name: s.ids.agent,
      });
      const made = await s.b.fetch("/agents", json({ name: s.ids.agent, soul: "bravo soul" }));
      const text = await made.text();
      assert.equal(made.status, 201, text);
      assert.ok(!text.includes("alpha"), text);
      assert.equal((await s.b.fetch(`/agents/${s.ids.agent}`, { method: "DELETE" })).status, 204);
    },
  ],
  [
    "GET /user-profile is B's own (empty), PUT writes B's own",
    async (s) => {
      assert.deepEqual(await (await s.b.fetch("/user-profile")).json(), { content: null });
      assert.equal((await s.b.fetch("/user-profile", json({ content: "bravo" }, "PUT"))).status, 200);
    },
  ],
  ["assistants.get of A's agent by id", (s) => refused(s.b.client.assistants.get(s.ids.agentAssistant))],
  ["assistants.get of A's agent by name", (s) => refused(s.b.client.assistants.get(s.ids.agent))],
  ["assistants.getGraph of A's agent", (s) => refused(s.b.client.assistants.getGraph(s.ids.agentAssistant))],
  ["assistants.getSchemas of A's agent", (s) => refused(s.b.client.assistants.getSchemas(s.ids.agentAssistant))],
  ["assistants.getSubgraphs of A's agent", (s) => refused(s.b.client.assistants.getSubgraphs(s.ids.agentAssistant))],
  [
    "assistants.update of A's agent",
    (s) => refused(s.b.client.assistants.update(s.ids.agentAssistant, { context: { soul: "bravo" } })),
  ],
  ["assistants.delete of A's agent", (s) => refused(s.b.client.assistants.delete(s.ids.agentAssistant))],
  ["assistants.getVersions of A's agent", (s) => refused(s.b.client.assistants.getVersions(s.ids.agentAssistant))],
  ["assistants.setLatest of A's agent", (s) => refused(s.b.client.assistants.setLatest(s.ids.agentAssistant, 1))],
  [
    "assistants.search and count show B none of A's; B's own assistant is B's",
    async (s) => {
      const seen = await s.b.client.assistants.search({ limit: 100 });
      assert.deepEqual(
        seen.map((assistant) => assistant.name),
        ["lead_agent"],
      );
      assert.equal(await s.b.client.assistants.count(), 1);
      const own = await s.b.client.assistants.create({ graphId: "lead_agent", name: "bravo-agent" });
      assert.equal((await s.b.client.assistants.search({ limit: 100 })).length, 2);
      await s.b.client.assistants.delete(own.assistant_id);
    },
  ],
  [
    "runs with A's agent (by assistant id, or agent_name in context)",
    async (s) => {
      await refused(s.b.client.runs.wait(s.bThread, s.ids.agentAssistant, { input: say("x") }));
      await refused(
        s.b.client.runs.wait(s.bThread, "lead_agent", { input: say("x"), context: { agent_name: s.ids.agent } }),
      );
    },
  ],
  // Threads.
  ["threads.get", (s) => refused(s.b.client.threads.get(s.ids.thread))],
  ["threads.update", (s) => refused(s.b.client.threads.update(s.ids.thread, { metadata: { project: "bravo" } }))],
  ["threads.copy", (s) => refused(s.b.client.threads.copy(s.ids.thread))],
  ["threads.getState", (s) => refused(s.b.client.threads.getState(s.ids.thread))],
  [
    "threads.updateState",
    (s) => refused(s.b.client.threads.updateState(s.ids.thread, { values: say("bravo wrote this") })),
  ],
  ["threads.getState at a checkpoint", (s) => refused(s.b.client.threads.getState(s.ids.thread, s.ids.checkpoint))],
  [
    "threads.getState at a checkpoint object",
    (s) => refused(s.b.client.threads.getState(s.ids.thread, at(s.ids.thread, s.ids.checkpoint))),
  ],
  ["threads.getHistory", (s) => refused(s.b.client.threads.getHistory(s.ids.thread))],
  ["GET history (no such route)", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/history`))],
  ["threads.patchState", (s) => refused(s.b.client.threads.patchState(s.ids.thread, { x: 1 }))],
  [
    "threads.prune of A's thread prunes nothing",
    async (s) => {
      for (const strategy of ["delete", "keep_latest"] as const)
        assert.deepEqual(await s.b.client.threads.prune([s.ids.thread], { strategy }), { pruned_count: 0 });
    },
  ],
  [
    "threads.create with A's id says only that the id is taken",
    async (s) => {
      for (const ifExists of ["raise", "do_nothing"] as const) {
        const response = await s.b.fetch("/threads", json({ thread_id: s.ids.thread, if_exists: ifExists }));
        const text = await response.text();
        assert.equal(response.status, 409, text);
        assert.ok(!text.includes("alpha"), text);
      }
    },
  ],
  // Runs on A's thread.
  [
    "runs.stream on A's thread",
    (s) => refused(s.b.client.runs.stream(s.ids.thread, "lead_agent", { input: say("x") })),
  ],
  ["runs.wait on A's thread", (s) => refused(s.b.client.runs.wait(s.ids.thread, "lead_agent", { input: say("x") }))],
  [
    "runs.create on A's thread",
    (s) => refused(s.b.client.runs.create(s.ids.thread, "lead_agent", { input: say("x") })),
  ],
  [
    "runs.create on A's thread with ifNotExists create",
    (s) => refused(s.b.client.runs.create(s.ids.thread, "lead_agent", { input: say("x"), ifNotExists: "create" })),
  ],
  ["runs.list", (s) => refused(s.b.client.runs.list(s.ids.thread))],
  ["runs.get (finished)", (s) => refused(s.b.client.runs.get(s.ids.thread, s.ids.finishedRun))],
  ["runs.get (in flight)", (s) => refused(s.b.client.runs.get(s.ids.thread, s.ids.heldRun))],
  ["runs.join (finished)", (s) => refused(s.b.client.runs.join(s.ids.thread, s.ids.finishedRun))],
  ["runs.join (in flight)", (s) => refused(s.b.client.runs.join(s.ids.thread, s.ids.heldRun))],
  ["runs.cancel (in flight)", (s) => refused(s.b.client.runs.cancel(s.ids.thread, s.ids.heldRun))],
  [
    "runs.cancel with rollback and wait (in flight)",
    (s) => refused(s.b.client.runs.cancel(s.ids.thread, s.ids.heldRun, true, "rollback")),
  ],
  ["runs.delete (finished)", (s) => refused(s.b.client.runs.delete(s.ids.thread, s.ids.finishedRun))],
  [
    "runs.joinStream replaying from Last-Event-ID -1",
    (s) => refused(s.b.client.runs.joinStream(s.ids.thread, s.ids.finishedRun, { lastEventId: "-1" })),
  ],
  [
    "runs.joinStream (in flight)",
    (s) => refused(s.b.client.runs.joinStream(s.ids.thread, s.ids.heldRun, { lastEventId: "-1" })),
  ],
  ...STREAM_MODES.map((mode): [string, (s: Scene) => Promise<void>] => [
    `runs.joinStream in stream mode ${mode}`,
    (s) =>
      refused(s.b.client.runs.joinStream(s.ids.thread, s.ids.finishedRun, { lastEventId: "-1", streamMode: [mode] })),
  ]),
  // A's runs through B's own thread.
  ["runs.get of A's run on B's thread", (s) => refused(s.b.client.runs.get(s.bThread, s.ids.finishedRun))],
  ["runs.join of A's run on B's thread", (s) => refused(s.b.client.runs.join(s.bThread, s.ids.finishedRun))],
  [
    "runs.joinStream of A's run on B's thread",
    (s) => refused(s.b.client.runs.joinStream(s.bThread, s.ids.finishedRun, { lastEventId: "-1" })),
  ],
  ["runs.cancel of A's run on B's thread", (s) => refused(s.b.client.runs.cancel(s.bThread, s.ids.heldRun))],
  ["runs.delete of A's run on B's thread", (s) => refused(s.b.client.runs.delete(s.bThread, s.ids.finishedRun))],
  // Crons: A's cron and A's thread are missing for B; B's search and count hold only B's own.
  [
    "crons.createForThread on A's thread",
    (s) => refused(s.b.client.crons.createForThread(s.ids.thread, "lead_agent", { schedule: "0 9 * * *" })),
  ],
  ["crons.update of A's cron", (s) => refused(s.b.client.crons.update(s.ids.cron, { enabled: false }))],
  ["crons.delete of A's cron", (s) => refused(s.b.client.crons.delete(s.ids.cron))],
  [
    "crons.search and count show B only B's own crons",
    async (s) => {
      const own = await s.b.client.crons.create("lead_agent", { schedule: "0 9 1 1 *", input: say("bravo cron") });
      const seen = await s.b.client.crons.search({ limit: 1000 });
      assert.deepEqual(
        seen.map((cron) => cron.cron_id),
        [own.cron_id],
      );
      assert.deepEqual(await s.b.client.crons.search({ threadId: s.ids.thread }), []);
      assert.equal(await s.b.client.crons.count(), 1);
      assert.equal(await s.b.client.crons.count({ threadId: s.ids.thread }), 0);
      await s.b.client.crons.delete(own.cron_id);
    },
  ],
  // Scheduled tasks (DeerFlow's routes over crons): A's task and A's thread are missing for B.
  ["GET /scheduled-tasks/{id} of A's task", (s) => missing(s.b.fetch(`/scheduled-tasks/${s.ids.task}`))],
  [
    "PATCH /scheduled-tasks/{id} of A's task",
    (s) => missing(s.b.fetch(`/scheduled-tasks/${s.ids.task}`, json({ title: "bravo" }, "PATCH"))),
  ],
  ...(["pause", "resume", "trigger"] as const).map((action): [string, (s: Scene) => Promise<void>] => [
    `POST /scheduled-tasks/{id}/${action} of A's task`,
    (s) => missing(s.b.fetch(`/scheduled-tasks/${s.ids.task}/${action}`, { method: "POST" })),
  ]),
  ["GET /scheduled-tasks/{id}/runs of A's task", (s) => missing(s.b.fetch(`/scheduled-tasks/${s.ids.task}/runs`))],
  [
    "DELETE /scheduled-tasks/{id} of A's task",
    (s) => missing(s.b.fetch(`/scheduled-tasks/${s.ids.task}`, { method: "DELETE" })),
  ],
  ["GET /threads/{A's thread}/scheduled-tasks", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/scheduled-tasks`))],
  [
    "POST /scheduled-tasks on A's thread",
    (s) =>
      missing(
        s.b.fetch(
          "/scheduled-tasks",
          json({
            context_mode: "reuse_thread",
            thread_id: s.ids.thread,
            title: "bravo",
            prompt: "bravo",
            schedule_type: "cron",
            schedule_spec: { cron: "0 9 1 1 *" },
          }),
        ),
      ),
  ],
  [
    "GET /scheduled-tasks lists none of A's",
    async (s) => assert.deepEqual(await (await s.b.fetch("/scheduled-tasks")).json(), []),
  ],
  // Stateless runs naming A's thread, and A's runs by run id alone.
  ...(["stream", "wait", "create"] as const).map((kind): [string, (s: Scene) => Promise<void>] => [
    `stateless runs.${kind} with configurable.thread_id = A's thread`,
    (s) => {
      const payload = { input: say("x"), config: { configurable: { thread_id: s.ids.thread } } };
      if (kind === "stream") return refused(s.b.client.runs.stream(null, "lead_agent", payload));
      if (kind === "wait") return refused(s.b.client.runs.wait(null, "lead_agent", payload));
      return refused(s.b.client.runs.create(null, "lead_agent", payload));
    },
  ]),
  ["GET /runs/{id} (A's thread run)", (s) => missing(s.b.fetch(`/runs/${s.ids.finishedRun}`))],
  ["GET /runs/{id} (A's stateless run)", (s) => missing(s.b.fetch(`/runs/${s.ids.tempRun}`))],
  ["GET /runs/{id}/join", (s) => missing(s.b.fetch(`/runs/${s.ids.tempRun}/join`))],
  [
    "runs.joinStream without a thread (/runs/{id}/stream)",
    (s) => refused(s.b.client.runs.joinStream(null, s.ids.finishedRun, { lastEventId: "-1" })),
  ],
  [
    "POST /runs/{id}/cancel (in flight)",
    (s) => missing(s.b.fetch(`/runs/${s.ids.heldRun}/cancel`, { method: "POST" })),
  ],
  [
    "runs.cancelMany answers as for unknown runs and cancels nothing",
    async (s) => {
      const unknown = await s.b.fetch("/runs/cancel", json({ run_ids: [UNKNOWN] }));
      await s.b.client.runs.cancelMany({ runIds: [s.ids.heldRun, s.ids.finishedRun] });
      await s.b.client.runs.cancelMany({ threadId: s.ids.thread, status: "all" });
      assert.equal(unknown.status, 204);
    },
  ],
  // DeerFlow's gateway routes on A's thread.
  [
    "POST uploads",
    (s) =>
      missing(s.b.fetch(`/threads/${s.ids.thread}/uploads`, { method: "POST", body: uploadForm("bravo.txt", "b") })),
  ],
  ["GET uploads/list", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/uploads/list`))],
  ["GET uploads/limits", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/uploads/limits`))],
  ["DELETE an upload", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/uploads/notes.txt`, { method: "DELETE" }))],
  ["GET an artifact (output)", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/artifacts${REPORT}`))],
  [
    "GET an artifact (upload)",
    (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/artifacts/mnt/user-data/uploads/notes.txt`)),
  ],
  [
    "PUT an artifact",
    (s) =>
      missing(
        s.b.fetch(
          `/threads/${s.ids.thread}/artifacts${REPORT}`,
          json({ content: "bravo", expected_sha256: sha(A_REPORT) }, "PUT"),
        ),
      ),
  ],
  ["GET messages/page", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/messages/page`))],
  ["GET token-usage", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/token-usage`))],
  ["GET a run's changes", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/runs/${s.ids.finishedRun}/changes`))],
  [
    "GET a run's workspace changes (DeerFlow's shape)",
    (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/runs/${s.ids.finishedRun}/workspace-changes`)),
  ],

  [
    "POST runs/regenerate/prepare",
    (s) =>
      missing(s.b.fetch(`/threads/${s.ids.thread}/runs/regenerate/prepare`, json({ message_id: s.ids.aiMessage }))),
  ],
  [
    "POST runs/edit-regenerate/prepare",
    (s) =>
      missing(
        s.b.fetch(
          `/threads/${s.ids.thread}/runs/edit-regenerate/prepare`,
          json({ human_message_id: s.ids.humanMessage, replacement_text: "bravo" }),
        ),
      ),
  ],
  ["POST compact", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/compact`, json({ force: true })))],
  ["GET goal", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/goal`))],
  ...(
    [
      ["PUT", "", { rating: -1 }],
      ["POST", "", { rating: -1, comment: "bravo" }],
      ["GET", "", undefined],
      ["GET", "/stats", undefined],
      ["DELETE", "", undefined],
    ] as const
  ).map(([method, tail, body]): [string, (s: Scene) => Promise<void>] => [
    `${method} feedback${tail} of A's run`,
    (s) =>
      missing(
        s.b.fetch(
          `/threads/${s.ids.thread}/runs/${s.ids.finishedRun}/feedback${tail}`,
          body ? json(body, method) : { method },
        ),
      ),
  ]),
  [
    "DELETE A's feedback by id",
    (s) =>
      missing(
        s.b.fetch(`/threads/${s.ids.thread}/runs/${s.ids.finishedRun}/feedback/${s.ids.feedback}`, {
          method: "DELETE",
        }),
      ),
  ],
  [
    "feedback on A's run through B's own thread",
    (s) => missing(s.b.fetch(`/threads/${s.bThread}/runs/${s.ids.finishedRun}/feedback`, json({ rating: 1 }, "PUT"))),
  ],
  ["GET run events of A's run", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/runs/${s.ids.finishedRun}/events`))],
  [
    "GET run events of A's run through B's own thread",
    (s) => missing(s.b.fetch(`/threads/${s.bThread}/runs/${s.ids.finishedRun}/events`)),
  ],
  [
    "POST suggestions on A's thread",
    (s) =>
      missing(
        s.b.fetch(`/threads/${s.ids.thread}/suggestions`, json({ messages: [{ role: "user", content: "x" }], n: 2 })),
      ),
  ],
  [
    "POST branches from A's answer",
    (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/branches`, json({ message_id: s.ids.aiMessage }))),
  ],
  ["GET export of A's thread", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/export?format=json`))],
  [
    "store: B sees none of A's items, and B's writes under the same names are B's own",
    async (s) => {
      const store = s.b.client.store;
      assert.equal(await store.getItem(["notes", "alpha"], "plan"), null);
      assert.deepEqual((await store.searchItems(["notes"])).items, []);
      assert.deepEqual((await store.searchItems([], { query: "alpha" })).items, []);
      assert.deepEqual((await store.listNamespaces()).namespaces, []);
      await store.deleteItem(["notes", "alpha"], "plan");
      await store.putItem(["notes", "alpha"], "plan", { text: "bravo plan" });
      assert.deepEqual((await store.getItem(["notes", "alpha"], "plan"))?.value, { text: "bravo plan" });
      await store.deleteItem(["notes", "alpha"], "plan");
    },
  ],
  ["PUT goal", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/goal`, json({ objective: "bravo" }, "PUT")))],
  ["DELETE goal", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/goal`, { method: "DELETE" }))],
  ["HEAD an artifact", (s) => missing(s.b.fetch(`/threads/${s.ids.thread}/artifacts${REPORT}`, { method: "HEAD" }))],
  [
    "without a token: 401, and a preflight carries nothing",
    async (s) => {
      const url = `${s.t.url}/api/threads/${s.ids.thread}/artifacts${REPORT}`;
      assert.equal((await fetch(url)).status, 401);
      const preflight = await fetch(url, { method: "OPTIONS" });
      assert.ok(!(await preflight.text()).includes("alpha"));
    },
  ],
  [
    "while the thread store fails, file routes fail closed",
    async (s) => {
      const threads = s.t.server.context.threads;
      const get = threads.get;
      threads.get = async () => {
        throw new Error("the thread store is unavailable (injected)");
      };
      try {
        for (const file of [REPORT, "/mnt/user-data/uploads/notes.txt"]) {
          const response = await s.b.fetch(`/threads/${s.ids.thread}/artifacts${file}`);
          const text = await response.text();
          assert.ok(response.status >= 500, `${response.status}: ${text.slice(0, 200)}`);
          assert.ok(!text.includes("alpha"), text);
        }
      } finally {
        threads.get = get;
      }
    },
  ],
  // A's checkpoint ids used on B's own thread: checkpoints are keyed by thread as well.
  [
    "B's own thread at A's checkpoint: state, history, update and a forked run find nothing of A's",
    async (s) => {
      await refused(s.b.client.threads.getState(s.bThread, s.ids.checkpoint));
      await refused(s.b.client.threads.getState(s.bThread, at(s.bThread, s.ids.checkpoint)));
      const history = await s.b.client.threads.getHistory(s.bThread, {
        checkpoint: { checkpoint_id: s.ids.checkpoint },
      });
      assert.ok(history.every((entry) => entry.checkpoint.thread_id === s.bThread));
      assert.ok(!JSON.stringify(history).includes("alpha"));
      await refused(
        s.b.client.runs.create(s.bThread, "lead_agent", { input: say("x"), checkpointId: s.ids.checkpoint }),
      );
      const before = await s.b.client.threads.getState(s.bThread);
      await s.b.client.threads
        .updateState(s.bThread, { values: say("bravo again"), checkpointId: s.ids.checkpoint })
        .catch(() => undefined);
      const after = JSON.stringify(await s.b.client.threads.getHistory(s.bThread, { limit: 100 }));
      assert.ok(!after.includes("alpha") && !after.includes("report"), "B's history holds none of A's messages");
      assert.ok(before.values, "B's thread has state");
    },
  ],
  // A's threads whose ids are also route names (`/threads/search`, `/threads/count`).
  ["threads.get of A's thread `search`", (s) => refused(s.b.client.threads.get("search"))],
  ["threads.getState of A's thread `count`", (s) => refused(s.b.client.threads.getState("count"))],
  ["GET uploads/list of A's thread `search`", (s) => missing(s.b.fetch("/threads/search/uploads/list"))],
  [
    "GET an artifact of A's thread `search`",
    (s) => missing(s.b.fetch("/threads/search/artifacts/mnt/user-data/uploads/search.txt")),
  ],
  [
    "POST uploads to A's thread `count`",
    (s) => missing(s.b.fetch("/threads/count/uploads", { method: "POST", body: uploadForm("bravo.txt", "b") })),
  ],
  [
    "DELETE an upload of A's thread `count`",
    (s) => missing(s.b.fetch("/threads/count/uploads/count.txt", { method: "DELETE" })),
  ],
  // The temporary thread of A's finished stateless run: deleted, its files must not outlive it.
  [
    "GET an artifact of A's deleted temporary thread",
    (s) => missing(s.b.fetch(`/threads/${s.ids.tempThread}/artifacts${REPORT}`)),
  ],
  [
    "B uploads to A's deleted temporary thread id and finds none of A's files there",
    async (s) => {
      const upload = await s.b.fetch(`/threads/${s.ids.tempThread}/uploads`, {
        method: "POST",
        body: uploadForm("bravo.txt", "b"),
      });
      assert.ok([200, 404].includes(upload.status), `upload: ${upload.status}`);
      await missing(s.b.fetch(`/threads/${s.ids.tempThread}/artifacts${REPORT}`));
    },
  ],
  // Files left without a record (by stateless runs of older versions): nobody's to claim or read.
  [
    "GET an artifact of a leftover thread directory",
    (s) => missing(s.b.fetch(`/threads/${s.ids.leftoverThread}/artifacts${REPORT}`)),
  ],
  [
    "GET uploads/list of a leftover thread directory",
    (s) => missing(s.b.fetch(`/threads/${s.ids.leftoverThread}/uploads/list`)),
  ],
  [
    "POST uploads to a leftover thread directory",
    (s) =>
      missing(
        s.b.fetch(`/threads/${s.ids.leftoverThread}/uploads`, { method: "POST", body: uploadForm("bravo.txt", "b") }),
      ),
  ],
  [
    "runs.create on a leftover thread directory with ifNotExists create",
    (s) =>
      refused(s.b.client.runs.create(s.ids.leftoverThread, "lead_agent", { input: say("x"), ifNotExists: "create" })),
  ],
  [
    "stateless runs.wait with configurable.thread_id = a leftover thread directory",
    (s) =>
      refused(
        s.b.client.runs.wait(null, "lead_agent", {
          input: say("x"),
          config: { configurable: { thread_id: s.ids.leftoverThread } },
        }),
      ),
  ],
  [
    "threads.create over a leftover thread directory says only that the id is taken",
    async (s) => {
      const response = await s.b.fetch("/threads", json({ thread_id: s.ids.leftoverThread }));
      assert.equal(response.status, 409, await response.text());
      await missing(s.b.fetch(`/threads/${s.ids.leftoverThread}/artifacts${REPORT}`));
    },
  ],
  // A thread the CLI wrote while the server runs belongs to the admin, not to whoever names it first.
  [
    "threads.create with the id of a thread the CLI wrote says only that the id is taken",
    async (s) => {
      const response = await s.b.fetch("/threads", json({ thread_id: s.ids.cliThread }));
      assert.equal(response.status, 409, await response.text());
      await refused(s.b.client.threads.getState(s.ids.cliThread));
    },
  ],
  // Search and count see only B's own threads.
  [
    "threads.search and threads.count see only B's threads",
    async (s) => {
      const aIds = [s.ids.thread, "search", "count", s.ids.tempThread];
      const all = await s.b.client.threads.search({ limit: 100 });
      assert.ok(
        all.some((thread) => thread.thread_id === s.bThread),
        "B's own thread is listed",
      );
      assert.deepEqual(
        all.filter(
          (thread) => aIds.slice(0, 3).includes(thread.thread_id) || thread.metadata?.project === "alpha-secret",
        ),
        [],
      );
      assert.deepEqual(await s.b.client.threads.search({ ids: aIds.slice(0, 3) }), []);
      assert.deepEqual(await s.b.client.threads.search({ metadata: { project: "alpha-secret" } }), []);
      assert.equal(await s.b.client.threads.count({ metadata: { project: "alpha-secret" } }), 0);
      assert.equal(await s.b.client.threads.count(), all.length);
      const paged = await s.b.fetch("/threads/search", json({ ids: aIds.slice(0, 3) }));
      assert.equal(paged.headers.get("x-pagination-total"), "0");
    },
  ],
  // The account routes act on B's own account only.
  [
    "auth: me, tokens and change-password are B's own",
    async (s) => {
      const me = (await (await s.b.fetch("/v1/auth/me")).json()) as { id: string };
      assert.equal(me.id, s.b.id);
      const made = await s.b.fetch("/v1/auth/tokens", json({ name: "bravo" }));
      assert.equal(made.status, 201);
      s.secrets.set("bob's second API token", ((await made.json()) as { token: string }).token);
      const { tokens } = (await (await s.b.fetch("/v1/auth/tokens")).json()) as { tokens: Array<{ user_id: string }> };
      assert.ok(tokens.length > 0 && tokens.every((token) => token.user_id === s.b.id), JSON.stringify(tokens));
      await missing(s.b.fetch(`/v1/auth/tokens/${s.ids.apiTokenId}`, { method: "DELETE" }));
      const newPassword = `${s.b.password}-changed`;
      const changed = await s.b.fetch(
        "/v1/auth/change-password",
        json({ current_password: s.b.password, new_password: newPassword }),
      );
      assert.equal(changed.status, 200);
      s.secrets.set("bob's new password", newPassword);
    },
  ],
  // Admin routes are 403 for B.
  ["GET admin users", (s) => forbidden(s.b.fetch("/v1/admin/users"))],
  [
    "POST admin users",
    (s) => forbidden(s.b.fetch("/v1/admin/users", json({ name: "mallory", password: "mallory-pw-1" }))),
  ],
  ["PATCH A as admin", (s) => forbidden(s.b.fetch(`/v1/admin/users/${s.a.id}`, json({ admin: true }, "PATCH")))],
  ["DELETE A as admin", (s) => forbidden(s.b.fetch(`/v1/admin/users/${s.a.id}`, { method: "DELETE" }))],
  [
    "POST skills/install",
    (s) => forbidden(s.b.fetch("/skills/install", { method: "POST", body: uploadForm("x.skill", "not a zip") })),
  ],
  ["PUT a skill", (s) => forbidden(s.b.fetch("/skills/anything", json({ enabled: false }, "PUT")))],
  ["PUT mcp/config", (s) => forbidden(s.b.fetch("/mcp/config", json({ mcp_servers: {} }, "PUT")))],
  [
    "PUT one MCP server",
    (s) => forbidden(s.b.fetch("/mcp/config/servers/web", json({ type: "http", url: "http://127.0.0.1:1/" }, "PUT"))),
  ],
  ["PATCH one MCP server", (s) => forbidden(s.b.fetch("/mcp/config/servers/web", json({ enabled: false }, "PATCH")))],
  ["DELETE one MCP server", (s) => forbidden(s.b.fetch("/mcp/config/servers/web", { method: "DELETE" }))],

  // Memory: each user has their own; B reads, changes, exports, imports and clears only B's.
  [
    "memory: B never sees or changes A's facts",
    async (s) => {
      const added = await s.a.fetch(
        "/memory/facts",
        json({ content: "alpha keeps bees", category: "context", confidence: 0.9 }),
      );
      assert.equal(added.status, 200);
      const factId = ((await added.json()) as { facts: Array<{ id: string; content: string }> }).facts.find(
        (fact) => fact.content === "alpha keeps bees",
      )!.id;
      const bMemory = await (await s.b.fetch("/memory")).text();
      assert.ok(!bMemory.includes("alpha"), `B's memory shows A's fact: ${bMemory.slice(0, 300)}`);
      await missing(s.b.fetch(`/memory/facts/${factId}`, json({ content: "bravo" }, "PATCH")));
      await missing(s.b.fetch(`/memory/facts/${factId}`, { method: "DELETE" }));
      assert.equal(
        (await s.b.fetch("/memory/facts", json({ content: "bravo rides", category: "context", confidence: 0.9 })))
          .status,
        200,
      );
      const exported = await (await s.b.fetch("/memory/export")).text();
      assert.ok(!exported.includes("alpha"), "B's export carries A's fact");
      assert.equal(
        (
          await s.b.fetch("/memory/import", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: exported,
          })
        ).status,
        200,
      );
      assert.equal((await s.b.fetch("/memory", { method: "DELETE" })).status, 200);
      const aMemory = await (await s.a.fetch("/memory")).text();
      assert.ok(aMemory.includes("alpha keeps bees"), "A's fact is gone after B's attempts");
      assert.ok(!aMemory.includes("bravo"), "B's fact reached A's memory");
    },
  ],
  // Deleting last: had any refusal above failed open, this one would have hidden it.
  ["threads.delete", (s) => refused(s.b.client.threads.delete(s.ids.thread))],
];
