/**
 * `batch_task` survives a crash: a real `deerflow serve` runs a 5,000-item batch read from an uploaded
 * JSONL file, is SIGKILLed part-way, and a second process on the same home resumes the run. The batch
 * goes on from its table; the results file served by the artifacts route then holds every item exactly
 * once with its own result, and only the items in flight at the kill were asked of the model twice.
 * The same on Postgres (skipped with the reason when no database is reachable).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type TestContext, test } from "node:test";
import {
  type ChatCompletionRequest,
  createTempHome,
  fakeModelConfig,
  startFakeOpenAIServer,
  testDatabase,
} from "@deerflow/harness/testing";
import { lastUserText, until } from "./helpers.js";
import { type ServeProcess, startServe, stopServers } from "./serve-process.js";

const ITEMS = 5000;
const CONCURRENCY = 8;
const TEMPLATE = "Label this: {item.text}";

/** CPU seconds (user + system) a live process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

test("a 5,000-item batch_task finishes after the server is SIGKILLed midway, every item recorded exactly once", async (t) => {
  await crashMidBatch(t, []);
});

test("on Postgres: the same 5,000-item batch survives a SIGKILL of the process running it", async (t) => {
  const database = await testDatabase();
  if ("skip" in database) {
    t.skip(database.skip);
    return;
  }
  t.after(() => database.drop());
  await crashMidBatch(t, [`database: {backend: postgres, url: '${database.url}'}`]);
});

/** Starts the batch in one `deerflow serve`, SIGKILLs it after 1,500 items, and checks a second one finishes it. */
async function crashMidBatch(t: TestContext, configLines: string[]) {
  const itemCalls = new Map<string, number>();
  const isItem = (body: ChatCompletionRequest) => !body.tools?.length && lastUserText(body).startsWith("Label this: ");
  const fake = await startFakeOpenAIServer({
    script: (body) => {
      if (isItem(body)) {
        const text = lastUserText(body).slice("Label this: ".length);
        itemCalls.set(text, (itemCalls.get(text) ?? 0) + 1);
        return { content: `label:${text}` };
      }
      if (body.messages.some((message) => message.role === "tool")) return { content: "The batch is done." };
      return {
        tool_calls: [
          {
            name: "batch_task",
            id: "call_batch",
            arguments: {
              description: "Label the items",
              prompt_template: TEMPLATE,
              items_file: "/mnt/user-data/uploads/items.jsonl",
              concurrency: CONCURRENCY,
            },
          },
        ],
      };
    },
  });
  const home = createTempHome();
  const config = path.join(home.path, "config.yaml");
  writeFileSync(config, fakeModelConfig(fake.url, "summarization: {enabled: false}", ...configLines));
  const procs: ServeProcess[] = [];
  t.after(async () => {
    await stopServers(procs);
    await fake.close();
    home.cleanup();
  });

  const first = await startServe({ config, home: home.path, procs });
  const thread = await first.client.threads.create();
  const lines = Array.from({ length: ITEMS }, (_, index) => JSON.stringify({ id: index, text: `item-${index}` }));
  const form = new FormData();
  form.append("files", new Blob([`${lines.join("\n")}\n`]), "items.jsonl");
  assert.equal(
    (await fetch(`${first.url}/threads/${thread.thread_id}/uploads`, { method: "POST", body: form })).status,
    200,
  );
  const run = await first.client.runs.create(thread.thread_id, "lead_agent", {
    input: { messages: [{ role: "user", content: "label every item in items.jsonl" }] },
    context: { subagent_enabled: true },
  });
  await until(() => itemCalls.size >= 1500, 120_000, "1,500 items asked of the model").catch((error: Error) => {
    throw new Error(`${error.message} (${itemCalls.size} asked); serve said: ${first.out.stderr.slice(-2000)}`);
  });
  const cpuBefore = cpuSeconds(first.child.pid!);
  first.child.kill("SIGKILL");
  await first.exited;
  const askedBeforeKill = itemCalls.size;
  assert.ok(askedBeforeKill < ITEMS, "killed midway");

  const second = await startServe({ config, home: home.path, procs });
  const values = (await second.client.runs.join(thread.thread_id, run.run_id)) as {
    messages: { type: string; content: string; additional_kwargs?: { batch?: { path: string } } }[];
  };
  const cpuAfter = cpuSeconds(second.child.pid!);
  assert.equal((await second.client.runs.get(thread.thread_id, run.run_id)).status, "success");
  // SQLite resumes the run at start; on Postgres the run's expired lease may be found first, by the
  // sweep that re-queues runs of dead workers. Either way the run is resumed, not restarted.
  assert.match(
    second.out.stderr,
    /interrupted by a restart; resuming it|stopped renewing its lease; queued again to resume/,
  );
  const toolMessages = values.messages.filter((message) => message.type === "tool");
  assert.equal(toolMessages.length, 1, "one batch_task result");
  assert.match(toolMessages[0]!.content, new RegExp(`${ITEMS} of ${ITEMS} items done, 0 failed`));
  assert.equal(values.messages.at(-1)!.content, "The batch is done.");

  const resultsPath = toolMessages[0]!.additional_kwargs!.batch!.path;
  const response = await fetch(`${second.url}/threads/${thread.thread_id}/artifacts${resultsPath}`);
  assert.equal(response.status, 200);
  const records = (await response.text())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { index: number; item: { text: string }; status: string; result: string });
  assert.equal(records.length, ITEMS, "one line per item");
  assert.equal(new Set(records.map((record) => record.index)).size, ITEMS, "no item twice");
  for (const [position, record] of records.entries()) {
    assert.equal(record.index, position);
    assert.equal(record.status, "done");
    assert.equal(record.result, `label:item-${position}`, "each item's own result");
  }
  const asked = [...itemCalls.values()];
  assert.equal(itemCalls.size, ITEMS, "every item was asked");
  const twice = asked.filter((count) => count > 1).length;
  assert.ok(twice <= CONCURRENCY, `only items in flight at the kill ran again (${twice})`);
  t.diagnostic(
    `asked before the kill: ${askedBeforeKill}; asked twice: ${twice}; serve CPU: ${cpuBefore.toFixed(1)} s before the kill, ${cpuAfter.toFixed(1)} s after the restart`,
  );
}
