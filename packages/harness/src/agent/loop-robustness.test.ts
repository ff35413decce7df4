import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { parseConfigText } from "../config/load-config.js";
import { createTempHome, startFakeOpenAIServer } from "../testing/index.js";
import { createLeadAgent } from "./create-lead-agent.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../test/fixtures");
const configFor = (url: string, extra = "") =>
  parseConfigText(
    `sandbox: {use: local}\nmodels:\n  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${url}', max_retries: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\n${extra}`,
    { source: path.join(fixtures, "config.yaml"), env: {} },
  );
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));
const weather = tool(async ({ city }: { city: string }) => `It is sunny in ${city}.`, {
  name: "weather",
  description: "Weather for a city",
  schema: z.object({ city: z.string() }),
});
const broken = tool(
  async () => {
    throw new Error("database is locked");
  },
  { name: "lookup_order", description: "Looks up an order", schema: z.object({ id: z.string() }) },
);

test("a code tool and a config tool that throw become error results naming the tool; the run goes on", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      {
        tool_calls: [
          { name: "lookup_order", arguments: { id: "42" } },
          { name: "explode", arguments: {} },
        ],
      },
      { content: "Both tools failed; sorry." },
    ],
  });
  try {
    const config = configFor(server.url, "tools: [{name: explode, use: './config-tools.mjs:explode'}]\n");
    const agent = await createLeadAgent(config, { home: home.path, tools: [broken], env: {} });
    const out = await agent.invoke(
      { messages: [{ role: "user", content: "order 42?" }] },
      { configurable: { thread_id: "t" } },
    );
    assert.equal(textOf(out.messages.at(-1)!.content), "Both tools failed; sorry.");
    const sent = server.requests[1]!.messages.filter((message) => message.role === "tool").map((message) =>
      textOf(message.content),
    );
    assert.equal(sent.length, 2);
    assert.match(sent[0]!, /lookup_order/);
    assert.match(sent[0]!, /database is locked/);
    assert.match(sent[1]!, /explode/);
    assert.match(sent[1]!, /fuse blown/);
    assert.equal(server.rejected.length, 0);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("tool calls with empty ids keep their real results in every later request", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      {
        tool_calls: [
          { id: "", name: "weather", arguments: { city: "Oslo" } },
          { id: "", name: "weather", arguments: { city: "Rome" } },
        ],
      },
      { content: "Sunny in both." },
      { tool_calls: [{ id: "", name: "weather", arguments: { city: "Lima" } }] },
      { content: "Sunny in Lima too." },
    ],
  });
  try {
    const agent = await createLeadAgent(configFor(server.url), { home: home.path, tools: [weather], env: {} });
    await agent.invoke(
      { messages: [{ role: "user", content: "Oslo and Rome?" }] },
      { configurable: { thread_id: "t" } },
    );
    const out = await agent.invoke(
      { messages: [{ role: "user", content: "And Lima?" }] },
      { configurable: { thread_id: "t" } },
    );
    assert.equal(textOf(out.messages.at(-1)!.content), "Sunny in Lima too.");
    const last = server.requests.at(-1)!.messages;
    const results = last.filter((message) => message.role === "tool").map((message) => textOf(message.content));
    assert.deepEqual(results, ["It is sunny in Oslo.", "It is sunny in Rome.", "It is sunny in Lima."]);
    const callIds = last.flatMap((message) =>
      ((message as { tool_calls?: { id: string }[] }).tool_calls ?? []).map((call) => call.id),
    );
    assert.equal(new Set(callIds).size, 3, `ids must be distinct: ${callIds.join(", ")}`);
    assert.ok(callIds.every(Boolean));
    assert.equal(server.rejected.length, 0);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("the same tool call repeated: results carry a warning from warn_threshold, the run stops at hard_limit", async () => {
  const home = createTempHome();
  let runs = 0;
  const counting = tool(async ({ city }: { city: string }) => `run ${++runs}: sunny in ${city}`, {
    name: "weather",
    description: "Weather",
    schema: z.object({ city: z.string() }),
  });
  const same = { tool_calls: [{ name: "weather", arguments: { city: "Oslo" } }] };
  const server = await startFakeOpenAIServer({ strict: true, script: [same, same, same, same] });
  try {
    const warnings: string[] = [];
    const agent = await createLeadAgent(configFor(server.url, "loop_detection: {warn_threshold: 2, hard_limit: 4}\n"), {
      home: home.path,
      tools: [counting],
      env: {},
      onWarning: (w) => warnings.push(w),
    });
    const out = await agent.invoke(
      { messages: [{ role: "user", content: "weather?" }] },
      { configurable: { thread_id: "loop" } },
    );
    assert.equal(server.requests.length, 4);
    assert.equal(runs, 3, "the 4th identical call is not run");
    const results = out.messages
      .filter((message) => message.getType() === "tool")
      .map((message) => textOf(message.content));
    assert.ok(!/Loop warning/.test(results[0]!));
    assert.match(
      results[1]!,
      /^run 2: sunny in Oslo\n\n\[Loop warning: you have sent this same call \(weather with the same arguments\) 2 times in a row/,
    );
    assert.match(results[2]!, /3 times in a row/);
    const last = out.messages.at(-1)!;
    assert.match(
      textOf(last.content),
      /\[Stopped: the same tool call \(weather\) with the same arguments was sent 4 times in a row/,
    );
    assert.equal((last as { tool_calls?: unknown[] }).tool_calls?.length ?? 0, 0);
    assert.ok(warnings.some((w) => /loop-detection/.test(w)));
    assert.equal(server.rejected.length, 0);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("token usage is recorded per run and per thread; a run past token_budget stops cleanly", async () => {
  const home = createTempHome();
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      {
        tool_calls: [{ name: "weather", arguments: { city: "Oslo" } }],
        usage: { prompt_tokens: 600, completion_tokens: 100 },
      },
      {
        tool_calls: [{ name: "weather", arguments: { city: "Rome" } }],
        usage: { prompt_tokens: 800, completion_tokens: 50 },
      },
      { content: "Hello again.", usage: { prompt_tokens: 500, completion_tokens: 20 } },
    ],
  });
  try {
    const agent = await createLeadAgent(configFor(server.url, "token_budget: {enabled: true, max_tokens: 1000}\n"), {
      home: home.path,
      tools: [weather],
      env: {},
      onWarning: () => {},
    });
    const config = { configurable: { thread_id: "budget" } };
    const out = await agent.invoke({ messages: [{ role: "user", content: "weather?" }] }, config);
    assert.match(
      textOf(out.messages.at(-1)!.content),
      /\[Stopped: this run used 1,550 tokens \(input \+ output\), over its budget of 1,000/,
    );
    assert.equal(
      out.messages.filter((message) => message.getType() === "tool").length,
      1,
      "the call in the response over budget is not run",
    );
    assert.deepEqual((out as Record<string, unknown>).run_token_usage, {
      input_tokens: 1400,
      output_tokens: 150,
      total_tokens: 1550,
    });

    const next = await agent.invoke({ messages: [{ role: "user", content: "hi" }] }, config);
    assert.equal(textOf(next.messages.at(-1)!.content), "Hello again.");
    assert.deepEqual((next as Record<string, unknown>).run_token_usage, {
      input_tokens: 500,
      output_tokens: 20,
      total_tokens: 520,
    });
    assert.deepEqual((next as Record<string, unknown>).token_usage, {
      input_tokens: 1900,
      output_tokens: 170,
      total_tokens: 2070,
    });
    assert.equal(server.rejected.length, 0);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("plan mode: after summarization compacted the plan away, the model is shown the current todos", async () => {
  const home = createTempHome();
  const main: string[] = [];
  const plan = [
    { content: "Draft the report", status: "in_progress" },
    { content: "Send it", status: "pending" },
  ];
  const replies = [
    { tool_calls: [{ name: "write_todos", arguments: { todos: plan } }] },
    { content: "Started." },
    { content: "I will continue next turn." },
    { content: "Really, next turn." },
    {
      tool_calls: [
        { name: "write_todos", arguments: { todos: plan.map((todo) => ({ ...todo, status: "completed" })) } },
      ],
    },
    { content: "All done." },
  ];
  const server = await startFakeOpenAIServer({
    strict: true,
    script: (body) => {
      if (JSON.stringify(body.messages).includes("<new_messages>")) return { content: "Summary of earlier work." };
      const system = body.messages[0]!.content;
      main.push(
        Array.isArray(system) ? system.map((block: { text?: string }) => block.text ?? "").join("") : textOf(system),
      );
      return replies[main.length - 1]!;
    },
  });
  try {
    const config = configFor(
      server.url,
      "summarization: {trigger: {type: messages, value: 5}, keep: {type: messages, value: 2}}\n",
    );
    const agent = await createLeadAgent(config, { home: home.path, env: {}, is_plan_mode: true, onWarning: () => {} });
    const thread = { configurable: { thread_id: "plan" } };
    await agent.invoke({ messages: [{ role: "user", content: "Write and send the report." }] }, thread);
    assert.equal(main.length, 4, "the early final answer with open todos got two reminders");
    assert.ok(!main[0]!.includes("<todo_reminder>"));
    const out = await agent.invoke({ messages: [{ role: "user", content: "Continue." }] }, thread);
    assert.match(main[4]!, /<todo_reminder>[\s\S]*- \[in_progress\] Draft the report\n- \[pending\] Send it/);
    assert.equal(textOf(out.messages.at(-1)!.content), "All done.");
    assert.equal(server.rejected.length, 0);
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("a subagent that repeats one tool call is stopped by loop detection and the lead gets its result", async () => {
  const home = createTempHome();
  let subagentCalls = 0;
  const server = await startFakeOpenAIServer({
    strict: true,
    script: (body) => {
      const system = JSON.stringify(body.messages[0]?.content ?? "");
      if (!system.includes("subagent_system")) {
        subagentCalls += 1;
        return { tool_calls: [{ name: "weather", arguments: { city: "Oslo" } }] };
      }
      const sawResult = body.messages.some((message) => message.role === "tool");
      return sawResult
        ? { content: "The helper got stuck." }
        : {
            tool_calls: [
              {
                name: "task",
                arguments: {
                  description: "Check weather",
                  prompt: "Weather in Oslo?",
                  subagent_type: "general-purpose",
                },
              },
            ],
          };
    },
  });
  try {
    const agent = await createLeadAgent(configFor(server.url, "loop_detection: {warn_threshold: 2, hard_limit: 3}\n"), {
      home: home.path,
      tools: [weather],
      env: {},
      subagent_enabled: true,
      onWarning: () => {},
    });
    const out = await agent.invoke(
      { messages: [{ role: "user", content: "Delegate it." }] },
      { configurable: { thread_id: "sub-loop" } },
    );
    assert.equal(subagentCalls, 3, "the subagent stopped at hard_limit, not at max_turns");
    const result = out.messages.find(
      (message) => message.getType() === "tool" && (message as { name?: string }).name === "task",
    )!;
    assert.match(
      textOf(result.content),
      /\[Stopped: the same tool call \(weather\) with the same arguments was sent 3 times in a row/,
    );
    assert.equal(textOf(out.messages.at(-1)!.content), "The helper got stuck.");
    await agent.close();
  } finally {
    await server.close();
    home.cleanup();
  }
});
