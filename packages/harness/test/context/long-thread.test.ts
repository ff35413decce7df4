/**
 * Done-when scenario of the context-engineering issue: a 300-turn conversation with tool calls through a
 * real createAgent (dangling-tool-call, durable-context, summarization), the real ChatOpenAI client, and
 * the fake OpenAI server in strict mode (HTTP 400 on any unpaired tool call). Every answer numbers its
 * tool calls "call_0", "call_1", as some providers do, so ids recur across turns; one run is left
 * interrupted mid-tool; one summary request fails so the fallback candidate has to answer.
 */
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { tempHome } from "../../src/testing/temp-home.js";

// The timeout is only a net for a hang: the turns take about 20 s of CPU, but on a machine shared by
// many jobs this thread's timer fires on time while the worker waits for a core (on the test's own
// thread, the busy loop used to delay it past the turns' end).
test("a 300-turn conversation stays paired, bounded and complete", { timeout: 1_800_000 }, async (t) => {
  const dir = tempHome(t, { prefix: "deerflow-long-thread-" });
  // import.meta.resolve: the module beside this one as it runs (its compiled copy, or its source under tsx).
  const worker = new Worker(new URL(import.meta.resolve("./long-thread-conversation.js")), {
    workerData: { longThreadDir: dir },
  });
  t.after(() => worker.terminate());
  await new Promise<void>((resolve, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the worker exited with ${code}`))));
  });
});
