/**
 * Per-user quotas on one process (SQLite): each limit answers 429 with Retry-After and a detail naming
 * the limit, a user's own limit beats the default, another user is not affected, and the home's local
 * user (no accounts) has no quotas. The Postgres cluster case is postgres-quotas.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { addUser, issueToken } from "../src/auth/accounts.js";
import { secondsToUtcMidnight } from "../src/auth/quotas.js";
import { usageDay } from "../src/auth/types.js";
import { gate, lastUserText, startTestServer, type TestServer, until } from "./helpers.js";

/** A user with an API token, and fetch as them. */
async function signUp(t: TestServer, name: string) {
  const user = await addUser(t.server.context.users, { name });
  const { token } = await issueToken(t.server.context.users, user.id, "api");
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${t.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.body instanceof FormData ? {} : json), ...init.headers },
    });
  const thread = async () => ((await (await call("/threads", post({}))).json()) as { thread_id: string }).thread_id;
  /** Starts a run; with `wait`, resolves once it is over (a `/wait` answer's status comes before its body). */
  const run = async (threadId: string, text: string, wait = false) => {
    const response = await call(`/threads/${threadId}/runs${wait ? "/wait" : ""}`, post(say(text)));
    if (!wait) return response;
    return new Response(await response.text(), { status: response.status, headers: response.headers });
  };
  return { user, call, thread, run };
}

const json = { "content-type": "application/json" };
const post = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });
const say = (text: string) => ({ assistant_id: "lead_agent", input: { messages: [{ role: "user", content: text }] } });

/** The 429's detail and Retry-After. */
async function refused(response: Response): Promise<{ detail: string; retryAfter: number }> {
  assert.equal(response.status, 429, await response.clone().text());
  const { detail } = (await response.json()) as { detail: string };
  return { detail, retryAfter: Number(response.headers.get("retry-after")) };
}

/** True when Retry-After points at the end of the UTC day (measured around the request). */
function untilMidnight(seconds: number, before: number, after: number): boolean {
  return seconds <= before && seconds >= after;
}

test("concurrent_runs: the user's next run is a 429 while theirs run; another user's is not; free again once one ends", async () => {
  const hold = gate();
  const t = await startTestServer({
    yaml: "auth: {quotas: {concurrent_runs: 1}}",
    script: async (body) => {
      if (lastUserText(body) === "hold") await hold.wait;
      return { content: "done" };
    },
  });
  try {
    const ann = await signUp(t, "ann");
    const bob = await signUp(t, "bob");
    const [first, second] = [await ann.thread(), await ann.thread()];
    const running = await ann.run(first, "hold");
    assert.equal(running.status, 200);
    const { run_id } = (await running.json()) as { run_id: string };

    const over = await refused(await ann.run(second, "hi"));
    assert.equal(
      over.detail,
      "Quota reached: 1 concurrent run (auth.quotas.concurrent_runs). Wait for a run to finish, or ask an admin to raise your limit.",
    );
    assert.equal(over.retryAfter, 5);
    // A stateless run refused leaves no temporary thread behind.
    const threadsBefore = (await (await ann.call("/threads/count", post({}))).json()) as number;
    await refused(await ann.call("/runs/wait", post(say("hi"))));
    assert.equal((await (await ann.call("/threads/count", post({}))).json()) as number, threadsBefore);

    assert.equal((await bob.run(await bob.thread(), "hi", true)).status, 200, "another user has their own slot");

    hold.open();
    await until(async () => {
      const run = (await (await ann.call(`/threads/${first}/runs/${run_id}`)).json()) as { status: string };
      return run.status === "success";
    });
    assert.equal((await ann.run(second, "hi", true)).status, 200);
    // Refused runs were not counted: ann started two.
    assert.equal((await t.server.context.users.usage(ann.user.id, usageDay())).runs, 2);
  } finally {
    hold.open();
    await t.close();
  }
});

test("runs_per_day: counted at admission; a user's own limit beats the default; Retry-After is the end of the UTC day", async () => {
  const t = await startTestServer({ yaml: "auth: {quotas: {runs_per_day: 1}}" });
  try {
    const ann = await signUp(t, "ann");
    const bob = await signUp(t, "bob");
    await t.server.context.users.update(ann.user.id, { quotas: { runs_per_day: 2 } });
    const thread = await ann.thread();
    assert.equal((await ann.run(thread, "one", true)).status, 200);
    assert.equal((await ann.run(thread, "two", true)).status, 200);
    const before = secondsToUtcMidnight();
    const over = await refused(await ann.run(thread, "three"));
    const after = secondsToUtcMidnight();
    assert.match(
      over.detail,
      /^Quota reached: 2 runs per day \(auth\.quotas\.runs_per_day, set for you by an admin\); you have started 2 today\. It resets at 00:00 UTC, in .+; start new runs then, or ask an admin to raise your limit\.$/,
    );
    assert.ok(untilMidnight(over.retryAfter, before, after), `Retry-After ${over.retryAfter}`);

    const bobThread = await bob.thread();
    assert.equal((await bob.run(bobThread, "one", true)).status, 200);
    const bobOver = await refused(await bob.run(bobThread, "two"));
    assert.match(bobOver.detail, /^Quota reached: 1 run per day \(auth\.quotas\.runs_per_day\); you have started 1/);
  } finally {
    await t.close();
  }
});

test("tokens_per_day: the run that passes it finishes; the next run is a 429", async () => {
  const t = await startTestServer({
    yaml: "auth: {quotas: {tokens_per_day: 100}}",
    script: () => ({ content: "A long answer.", usage: { prompt_tokens: 80, completion_tokens: 30 } }),
  });
  try {
    const ann = await signUp(t, "ann");
    const thread = await ann.thread();
    const finished = await ann.run(thread, "first", true);
    assert.equal(finished.status, 200);
    const values = (await finished.json()) as { messages: { content: string }[] };
    assert.equal(values.messages.at(-1)!.content, "A long answer.", "the run over the limit is not cut");
    assert.equal((await t.server.context.users.usage(ann.user.id, usageDay())).tokens, 110);

    const over = await refused(await ann.run(thread, "second"));
    assert.match(
      over.detail,
      /^Quota reached: 100 model tokens per day \(auth\.quotas\.tokens_per_day\); your runs have used 110 today\. It resets at 00:00 UTC/,
    );
    assert.ok(over.retryAfter > 0 && over.retryAfter <= 86_400);

    const bob = await signUp(t, "bob");
    assert.equal((await bob.run(await bob.thread(), "hi", true)).status, 200);
  } finally {
    await t.close();
  }
});

test("tokens_per_day counts every model call of a run, its subagents' included, once each", async () => {
  const t = await startTestServer({
    yaml: "subagents: {enabled: true}",
    script: (body) => {
      const usage = { prompt_tokens: 10, completion_tokens: 1 };
      const answered = body.messages.some((message) => message.role === "tool");
      if (JSON.stringify(body.messages).includes("You are a subagent"))
        return answered
          ? { content: "Found nothing.", usage }
          : {
              tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }],
              usage,
            };
      if (answered) return { content: "The subagent found nothing.", usage };
      const task = { description: "Look around", prompt: "List the workspace", subagent_type: "general-purpose" };
      return { tool_calls: [{ name: "task", arguments: task }], usage };
    },
  });
  try {
    const ann = await signUp(t, "ann");
    const thread = await ann.thread();
    const done = await ann.call(
      `/threads/${thread}/runs/wait`,
      post({ ...say("delegate"), context: { subagent_enabled: true } }),
    );
    assert.equal(done.status, 200);
    await done.text();
    assert.equal(t.fake.requests.length, 4, "two calls of the lead, two of the subagent");
    assert.equal((await t.server.context.users.usage(ann.user.id, usageDay())).tokens, 4 * 11);
  } finally {
    await t.close();
  }
});

test("upload_bytes_per_day: counted when stored; an upload past it is a 429 and nothing is kept", async () => {
  const t = await startTestServer({ yaml: "auth: {quotas: {upload_bytes_per_day: 10}}" });
  const upload = (who: Awaited<ReturnType<typeof signUp>>, thread: string, name: string, content: string) => {
    const body = new FormData();
    body.append("files", new Blob([content]), name);
    return who.call(`/api/threads/${thread}/uploads`, { method: "POST", body });
  };
  try {
    const ann = await signUp(t, "ann");
    const thread = await ann.thread();
    assert.equal((await upload(ann, thread, "a.txt", "12345678")).status, 200);
    const over = await refused(await upload(ann, thread, "b.txt", "12345"));
    assert.match(
      over.detail,
      /^Quota reached: 10 upload bytes per day \(auth\.quotas\.upload_bytes_per_day\); 8 used today, and this upload is 5 bytes\. It resets at 00:00 UTC, in .+; upload then, upload less now, or ask an admin to raise your limit\.$/,
    );
    assert.ok(over.retryAfter > 0 && over.retryAfter <= 86_400);
    const list = (await (await ann.call(`/api/threads/${thread}/uploads/list`)).json()) as { count: number };
    assert.equal(list.count, 1);
    assert.equal((await t.server.context.users.usage(ann.user.id, usageDay())).upload_bytes, 8);
    assert.equal((await upload(ann, thread, "c.txt", "12")).status, 200, "what fits still goes");

    const bob = await signUp(t, "bob");
    assert.equal((await upload(bob, await bob.thread(), "a.txt", "1234567890")).status, 200);
  } finally {
    await t.close();
  }
});

test("the home's local user (no accounts) has no quotas", async () => {
  const t = await startTestServer({
    yaml: "auth: {quotas: {concurrent_runs: 0, runs_per_day: 0, tokens_per_day: 0, upload_bytes_per_day: 0}}",
  });
  try {
    const thread = (await t.client.threads.create()).thread_id;
    await t.client.runs.wait(thread, "lead_agent", { input: { messages: [{ role: "user", content: "hi" }] } });
    await t.client.runs.wait(thread, "lead_agent", { input: { messages: [{ role: "user", content: "again" }] } });
    const body = new FormData();
    body.append("files", new Blob(["hello"]), "a.txt");
    const uploaded = await fetch(`${t.url}/api/threads/${thread}/uploads`, { method: "POST", body });
    assert.equal(uploaded.status, 200);
  } finally {
    await t.close();
  }
});
