/**
 * Streaming through the official SDK: every mode, the framing rules of §A.7 (metadata first, end last,
 * an id on every event, heartbeats, Content-Location and Location), token deltas, a second run on the
 * same thread, stamps on the thread's metadata, and the thread list with its title.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collect, gate, parseSse, readSse, startTestServer } from "./helpers.js";

test("a streamed run sends metadata first, every requested mode, ids everywhere and end last", async () => {
  const t = await startTestServer({
    script: (body) => {
      if (body.messages.some((message) => message.role === "tool")) return { content: "The workspace is empty." };
      return { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }] };
    },
  });
  try {
    const thread = await t.client.threads.create();
    let created: { run_id: string; thread_id?: string } | undefined;
    const parts = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "What is in the workspace?" }] },
        streamMode: ["values", "messages-tuple", "updates", "custom", "tasks", "checkpoints", "debug", "tools"],
        onRunCreated: (meta) => {
          created = meta;
        },
      }),
    );
    const events = parts.map((part) => part.event);
    assert.equal(events[0], "metadata");
    assert.equal(events.at(-1), "end");
    for (const mode of ["values", "messages", "updates", "tasks", "checkpoints", "debug", "tools"])
      assert.ok(events.includes(mode as never), `missing ${mode} in ${events.join(",")}`);
    assert.ok(
      parts.every((part) => typeof (part as { id?: string }).id === "string"),
      "every event has an id",
    );
    const ids = parts.map((part) => Number((part as { id?: string }).id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      "ids increase",
    );
    const metadata = parts[0]!.data as { run_id: string; thread_id: string; attempt: number };
    assert.equal(metadata.thread_id, thread.thread_id);
    assert.equal(metadata.attempt, 1);
    assert.equal(created?.run_id, metadata.run_id, "onRunCreated saw the run id from Content-Location");

    const deltas = parts
      .filter((part) => part.event === "messages")
      .map(
        (part) =>
          part.data as unknown as [
            { type: string; id: string; content: string; tool_call_chunks?: unknown[] },
            { langgraph_node: string },
          ],
      );
    assert.ok(deltas.length > 2, "token deltas arrive as messages events");
    assert.ok(
      deltas.every(([chunk]) => chunk.id && chunk.type),
      "every chunk has an id and a type",
    );
    assert.ok(
      deltas.some(([chunk]) => (chunk.tool_call_chunks ?? []).length > 0),
      "tool call chunks stream",
    );
    assert.ok(deltas.some(([chunk]) => chunk.content.includes("empty")));
    assert.equal(deltas[0]![1].langgraph_node, "model_request");

    const final = parts.filter((part) => part.event === "values").at(-1)!.data as {
      messages: { type: string; content: string; tool_calls?: unknown[] }[];
    };
    assert.deepEqual(
      final.messages.map((message) => message.type),
      ["human", "ai", "tool", "ai"],
    );
    assert.equal(final.messages.at(-1)!.content, "The workspace is empty.");

    const again = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "And now?" }] },
        streamMode: "values",
      }),
    );
    const values = again.filter((part) => part.event === "values").at(-1)!.data as { messages: unknown[] };
    assert.equal(values.messages.length, 6, "the second run continues the thread");

    const stored = await t.client.threads.get(thread.thread_id);
    assert.equal(stored.status, "idle");
    assert.equal(stored.metadata?.graph_id, "lead_agent");
    assert.ok(stored.metadata?.assistant_id);
    assert.equal((stored.values as { messages: unknown[] }).messages.length, 6);
  } finally {
    await t.close();
  }
});

test("raw SSE: headers, one-line data, heartbeats while the model is slow", async () => {
  const slow = gate();
  const t = await startTestServer({
    heartbeatMs: 100,
    script: async () => {
      await slow.wait;
      return { content: "done" };
    },
  });
  try {
    const thread = await t.client.threads.create();
    const response = await fetch(`${t.url}/api/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        assistant_id: "lead_agent",
        input: { messages: [{ role: "user", content: "hi" }] },
        stream_mode: ["values"],
      }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(response.headers.get("x-accel-buffering"), "no");
    const contentLocation = response.headers.get("content-location") ?? "";
    assert.match(contentLocation, new RegExp(`^/threads/${thread.thread_id}/runs/[0-9a-f-]+$`));
    assert.equal(response.headers.get("location"), `${contentLocation}/stream`, "Location is mount-relative (no /api)");
    let opened = false;
    const text = await readSse(response, (sofar) => {
      if (!opened && (sofar.match(/: heartbeat/g) ?? []).length >= 2) {
        opened = true;
        slow.open();
      }
      return false;
    });
    assert.ok(opened, "heartbeat comments arrived while the model was busy");
    const frames = parseSse(text);
    assert.equal(frames[0]!.event, "metadata");
    assert.equal(frames.at(-1)!.event, "end");
    assert.equal(frames.at(-1)!.data, "null");
    assert.ok(frames.every((frame) => frame.id !== undefined && frame.data !== undefined && frame.data !== ""));
  } finally {
    slow.open();
    await t.close();
  }
});

test("custom events carry subagent progress as DeerFlow's UI reads it", async () => {
  const t = await startTestServer({
    yaml: "subagents: {enabled: true}",
    script: (body) => {
      const all = JSON.stringify(body.messages);
      if (all.includes("You are a subagent")) {
        if (body.messages.some((message) => message.role === "tool")) return { content: "Found nothing." };
        return { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }] };
      }
      if (body.messages.some((message) => message.role === "tool")) return { content: "The subagent found nothing." };
      return {
        tool_calls: [
          {
            name: "task",
            arguments: { description: "Look around", prompt: "List the workspace", subagent_type: "general-purpose" },
          },
        ],
      };
    },
  });
  try {
    const thread = await t.client.threads.create();
    const parts = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "delegate" }] },
        streamMode: ["custom"],
        context: { subagent_enabled: true },
      }),
    );
    const custom = parts
      .filter((part) => part.event === "custom")
      .map(
        (part) =>
          part.data as {
            type: string;
            task_id: string;
            message?: { type: string; content: unknown; name?: string; tool_calls?: { name: string; args: unknown }[] };
          },
      );
    assert.equal(custom[0]!.type, "task_started");
    assert.equal(custom.at(-1)!.type, "task_completed");
    const running = custom.filter((event) => event.type === "task_running");
    assert.ok(running.length > 0);
    const withTool = running.find((event) => event.message?.tool_calls?.length);
    assert.ok(withTool, JSON.stringify(running));
    assert.equal(withTool.message!.type, "ai");
    assert.equal(withTool.message!.tool_calls![0]!.name, "ls");
    assert.ok("content" in withTool.message!);
  } finally {
    await t.close();
  }
});

test("threads.search lists the thread with its title; getHistory walks its checkpoints", async () => {
  const t = await startTestServer({
    // Every step's checkpoint kept: the default (`runs`) leaves one per finished run (docs/checkpoints.md).
    yaml: "checkpoints: {retention: all}\n",
    titles: true,
    script: (body) =>
      JSON.stringify(body.messages).includes("Write a title")
        ? { content: "Greeting the user" }
        : { content: "Hello!" },
  });
  try {
    const thread = await t.client.threads.create({ metadata: { owner: "me" } });
    await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "hi there" }] },
        streamMode: ["values", "updates"],
      }),
    );
    const found = await t.client.threads.search({
      metadata: { owner: "me" },
      limit: 50,
      sortBy: "updated_at",
      sortOrder: "desc",
      select: ["thread_id", "updated_at", "values", "metadata"],
    });
    assert.equal(found.length, 1);
    assert.equal(found[0]!.thread_id, thread.thread_id);
    assert.ok((found[0]!.values as { title?: string }).title, "the title is in the thread's values");
    assert.equal((found[0] as { status?: string }).status, undefined, "select returns only the selected fields");
    const history = await t.client.threads.getHistory(thread.thread_id, { limit: 100 });
    assert.ok(history.length >= 3);
    assert.ok(history[0]!.checkpoint.checkpoint_id);
    assert.equal(
      history[0]!.parent_checkpoint?.checkpoint_id,
      history[1]!.checkpoint.checkpoint_id,
      "parent_checkpoint links the history",
    );
    const one = await t.client.threads.getHistory(thread.thread_id, { limit: 1 });
    assert.equal(one.length, 1);
    const before = await t.client.threads.getHistory(thread.thread_id, {
      limit: 2,
      before: { configurable: { checkpoint_id: history[0]!.checkpoint.checkpoint_id } } as never,
    });
    assert.equal(before[0]!.checkpoint.checkpoint_id, history[1]!.checkpoint.checkpoint_id);
  } finally {
    await t.close();
  }
});

test("a clarification ends the run with a ToolMessage carrying artifact.human_input", async () => {
  const t = await startTestServer({
    script: () => ({
      tool_calls: [
        {
          name: "ask_clarification",
          arguments: { question: "Which city?", clarification_type: "missing_info", options: ["Paris", "Lyon"] },
        },
      ],
    }),
  });
  try {
    const thread = await t.client.threads.create();
    const values = (await t.client.runs.wait(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "weather?" }] },
    })) as {
      messages: {
        type: string;
        name?: string;
        artifact?: {
          human_input?: {
            kind: string;
            question: string;
            input_mode: string;
            options: { id: string; label: string }[];
          };
        };
      }[];
    };
    const last = values.messages.at(-1)!;
    assert.equal(last.type, "tool");
    assert.equal(last.name, "ask_clarification");
    assert.equal(last.artifact?.human_input?.kind, "human_input_request");
    assert.equal(last.artifact?.human_input?.question, "Which city?");
    assert.equal(last.artifact?.human_input?.input_mode, "choice_with_other");
    assert.deepEqual(
      last.artifact?.human_input?.options.map((option) => option.label),
      ["Paris", "Lyon"],
    );
  } finally {
    await t.close();
  }
});

test("events mode streams LangChain events next to the other requested modes; the legacy messages mode is a 422", async () => {
  const t = await startTestServer();
  try {
    const thread = await t.client.threads.create();
    const parts = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ role: "user", content: "hi" }] },
        streamMode: ["events", "values"],
      }),
    );
    const names = new Set(parts.map((part) => part.event));
    assert.ok(names.has("events" as never) && names.has("values"), [...names].join(","));
    assert.equal(parts[0]!.event, "metadata");
    assert.equal(parts.at(-1)!.event, "end");
    const kinds = new Set(
      parts.filter((part) => part.event === ("events" as never)).map((part) => (part.data as { event: string }).event),
    );
    assert.ok(kinds.has("on_chat_model_stream"), [...kinds].join(","));
    const final = parts.filter((part) => part.event === "values").at(-1)!.data as { messages: { content: string }[] };
    assert.equal(final.messages.at(-1)!.content, "Hello from the fake model.");
    const legacy = await fetch(`${t.url}/threads/${thread.thread_id}/runs`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "lead_agent", stream_mode: ["messages"] }),
    });
    assert.equal(legacy.status, 422);
  } finally {
    await t.close();
  }
});
