import { test } from "node:test";
import assert from "node:assert/strict";
import { HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver, ReducedValue, StateSchema } from "@langchain/langgraph";
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain";
import { z } from "zod";
import { ScriptedChatModel, type ScriptStep } from "../testing/scripted-model.js";
import { COMPOSED_CHAIN_NAME, composeChain } from "./compose-chain.js";

// `tally` is reduced by appending; `note` is a plain last-value channel.
const fields = {
  tally: new ReducedValue(
    z.array(z.string()).default(() => []),
    { reducer: (current: string[], next: string[]) => [...current, ...next] },
  ),
  note: z.string().optional(),
};
const schema = new StateSchema(fields);

type Log = string[];
type State = { messages: BaseMessage[]; tally?: string[]; note?: string };

const echo = tool(async ({ text }: { text: string }) => `echo ${text}`, {
  name: "echo",
  description: "echoes",
  schema: z.object({ text: z.string() }),
});

/** Three members touching the same channels in the same phases, every hook logging what it sees. */
function chain(log: Log): AgentMiddleware[] {
  let added = 0;
  const a = createMiddleware({
    name: "a",
    stateSchema: schema,
    beforeAgent: () => void log.push("a.beforeAgent"),
    beforeModel: (state: State) => {
      log.push(`a.beforeModel tally=${(state.tally ?? []).join(",")}`);
      added += 1;
      return {
        tally: ["a"],
        note: "from a",
        messages: [new HumanMessage({ id: `a-${added}`, content: `added by a ${added}` })],
      };
    },
    afterModel: () => void log.push("a.afterModel"),
    afterAgent: () => void log.push("a.afterAgent"),
    wrapModelCall: async (request, handler) => {
      log.push("a.wrap in");
      const response = await handler(request);
      log.push("a.wrap out");
      return response;
    },
    wrapToolCall: async (request, handler) => {
      log.push("a.tool in");
      const result = await handler(request);
      log.push("a.tool out");
      return result;
    },
  });
  const b = createMiddleware({
    name: "b",
    stateSchema: schema,
    beforeModel: (state: State) => {
      // Sees a's update of this very step, through the reducers: a's message and a's tally entry.
      const last = state.messages.at(-1);
      log.push(`b.beforeModel tally=${(state.tally ?? []).join(",")} note=${state.note} last=${last?.id}`);
      return { tally: ["b"], note: "from b", messages: [new RemoveMessage({ id: last!.id! })] };
    },
    afterModel: (state: State) => void log.push(`b.afterModel messages=${state.messages.length}`),
    wrapModelCall: async (request, handler) => {
      log.push("b.wrap in");
      const response = await handler(request);
      log.push("b.wrap out");
      return response;
    },
    wrapToolCall: async (request, handler) => {
      log.push("b.tool in");
      const result = await handler(request);
      log.push("b.tool out");
      return result;
    },
  });
  // c declares its state as a zod object (plain last-value channels), as loop-detection and token-usage do.
  let seen = 0;
  const c = createMiddleware({
    name: "c",
    stateSchema: z.object({ c_seen: z.number().optional() }),
    beforeModel: (state: { c_seen?: number }) => void log.push(`c.beforeModel seen=${state.c_seen}`),
    afterModel: () => (log.push("c.afterModel"), { c_seen: ++seen }),
    afterAgent: () => void log.push("c.afterAgent"),
    tools: [echo],
  });
  return [a, b, c];
}

const script = (): ScriptStep[] => [
  { tool_calls: [{ name: "echo", args: { text: "hi" }, id: "call-1" }], id: "ai-1" },
  { content: "done", id: "ai-2" },
];

async function run(members: (log: Log) => AgentMiddleware[], steps: ScriptStep[], composed: boolean) {
  const log: Log = [];
  const checkpointer = new MemorySaver();
  const list = members(log);
  const agent = createAgent({
    model: new ScriptedChatModel(steps),
    tools: [],
    stateSchema: schema,
    middleware: composed ? composeChain(list) : list,
    checkpointer,
  });
  const config = { configurable: { thread_id: "t" } };
  const result = (await agent.invoke(
    { messages: [new HumanMessage({ id: "u-1", content: "hello" })] },
    config,
  )) as State;
  let checkpoints = 0;
  for await (const _ of checkpointer.list(config)) checkpoints += 1;
  const state = {
    c_seen: (result as { c_seen?: number }).c_seen,
    messages: result.messages.map(
      (m) => `${m.getType()}:${ToolMessage.isInstance(m) ? m.tool_call_id : m.id}:${String(m.content)}`,
    ),
    tally: result.tally,
    note: result.note,
  };
  return { log, state, checkpoints, nodes: Object.keys(agent.graph.nodes) };
}

test("composed: one node per hook phase, hooks in langchain's order, state merged through the reducers, wrappers nested alike", async () => {
  const plain = await run(chain, script(), false);
  const composed = await run(chain, script(), true);

  // Same hooks in the same order, each seeing the same state; the same final state.
  assert.deepEqual(composed.log, plain.log);
  assert.deepEqual(composed.state, plain.state);
  assert.deepEqual(plain.log.slice(0, 8), [
    "a.beforeAgent",
    "a.beforeModel tally=",
    "b.beforeModel tally=a note=from a last=a-1",
    "c.beforeModel seen=undefined",
    "a.wrap in",
    "b.wrap in",
    "b.wrap out",
    "a.wrap out",
  ]);
  assert.deepEqual(plain.log.slice(8, 15), [
    "c.afterModel",
    "b.afterModel messages=2",
    "a.afterModel",
    "a.tool in",
    "b.tool in",
    "b.tool out",
    "a.tool out",
  ]);
  assert.deepEqual(plain.log.slice(-2), ["c.afterAgent", "a.afterAgent"]);
  // a adds a message and b removes it again; each step's tally gains a then b.
  assert.deepEqual(composed.state.tally, ["a", "b", "a", "b"]);
  assert.equal(composed.state.note, "from b");
  assert.equal(composed.state.c_seen, 2);
  assert.ok(composed.log.includes("c.beforeModel seen=1"));
  assert.ok(!composed.state.messages.some((entry) => entry.includes("added by a")));

  // (tool results get random ids, so they are compared by their call id)
  // One node per phase instead of one per member hook, and fewer checkpoints for it.
  const hookNodes = (nodes: string[]) => nodes.filter((name) => /\.(before|after)_(agent|model)$/.test(name)).sort();
  assert.deepEqual(
    hookNodes(composed.nodes),
    ["after_agent", "after_model", "before_agent", "before_model"].map((phase) => `${COMPOSED_CHAIN_NAME}.${phase}`),
  );
  assert.equal(hookNodes(plain.nodes).length, 9);
  assert.ok(
    composed.checkpoints < plain.checkpoints,
    `${composed.checkpoints} checkpoints composed, ${plain.checkpoints} plain`,
  );
});

/** A chain whose middle member jumps: back to the model from afterModel once, to the end from beforeModel on the third call. */
function jumping(log: Log): AgentMiddleware[] {
  let reminded = false;
  let calls = 0;
  return [
    createMiddleware({
      name: "first",
      beforeModel: () => void log.push("first.beforeModel"),
      afterModel: () => void log.push("first.afterModel"),
    }),
    createMiddleware({
      name: "middle",
      beforeModel: {
        canJumpTo: ["end"],
        hook: () => {
          calls += 1;
          log.push(`middle.beforeModel ${calls}`);
          return calls === 3 ? { jumpTo: "end" as const } : undefined;
        },
      },
      afterModel: {
        canJumpTo: ["model"],
        hook: () => {
          log.push("middle.afterModel");
          if (reminded) return undefined;
          reminded = true;
          return {
            messages: [new HumanMessage({ id: "reminder", content: "not done yet" })],
            jumpTo: "model" as const,
          };
        },
      },
    }),
    createMiddleware({
      name: "last",
      beforeModel: () => void log.push("last.beforeModel"),
      afterModel: () => void log.push("last.afterModel"),
    }),
  ];
}

test("composed: a member's jump stops the members after it and is routed as before", async () => {
  const steps = (): ScriptStep[] => [
    { content: "first answer", id: "ai-1" },
    { content: "second answer", id: "ai-2" },
    { content: "never", id: "ai-3" },
  ];
  const plain = await run(jumping, steps(), false);
  const composed = await run(jumping, steps(), true);
  assert.deepEqual(composed.log, plain.log);
  assert.deepEqual(composed.state, plain.state);
  assert.deepEqual(plain.log, [
    "first.beforeModel",
    "middle.beforeModel 1",
    "last.beforeModel",
    "last.afterModel",
    "middle.afterModel",
    // the jump to the model skips first.afterModel and every beforeModel
    "last.afterModel",
    "middle.afterModel",
    "first.afterModel",
  ]);
});

test("composed: a beforeModel jump to the end skips the later members and the model", async () => {
  const members = (log: Log) => [
    createMiddleware({
      name: "one",
      beforeModel: () => void log.push("one.beforeModel"),
      afterAgent: () => void log.push("one.afterAgent"),
    }),
    createMiddleware({
      name: "two",
      beforeModel: {
        canJumpTo: ["end"],
        hook: () => (log.push("two.beforeModel"), { note: "stopped", jumpTo: "end" as const }),
      },
    }),
    createMiddleware({ name: "three", stateSchema: schema, beforeModel: () => void log.push("three.beforeModel") }),
  ];
  const plain = await run(members, [{ content: "never" }], false);
  const composed = await run(members, [{ content: "never" }], true);
  assert.deepEqual(composed.log, plain.log);
  assert.deepEqual(composed.state, plain.state);
  assert.deepEqual(plain.log, ["one.beforeModel", "two.beforeModel"]);
});

test("composed: a jump a member does not allow is refused as langchain refuses it", async () => {
  const bad = () => [
    createMiddleware({ name: "ok", beforeModel: { canJumpTo: ["end"], hook: () => undefined } }),
    createMiddleware({ name: "bad", beforeModel: () => ({ jumpTo: "end" as const }) }),
  ];
  const agent = createAgent({
    model: new ScriptedChatModel([{ content: "x" }]),
    tools: [],
    middleware: composeChain(bad()),
  });
  await assert.rejects(
    agent.invoke({ messages: [new HumanMessage("hi")] }),
    /Invalid jump target: end, no beforeModel.canJumpTo defined in middleware bad/,
  );
});

test("composeChain refuses a member named like the composed middleware", () => {
  assert.throws(
    () => composeChain([createMiddleware({ name: COMPOSED_CHAIN_NAME })]),
    /already named "deerflow-chain"/,
  );
});

/** Members whose wrappers read their own channels: w counts its model calls in state; v reads a's tally. */
function stateful(log: Log): AgentMiddleware[] {
  const w = createMiddleware({
    name: "w",
    stateSchema: z.object({ w_count: z.number().optional() }),
    beforeModel: (state: { w_count?: number }) => ({ w_count: (state.w_count ?? 0) + 1 }),
    wrapModelCall: async (request, handler) => {
      const state = request.state as Record<string, unknown>;
      log.push(`w.wrap count=${state.w_count} keys=${Object.keys(state).sort().join(",")}`);
      // A wrapper that builds its own request (no spread of the one it was given) still passes state on.
      return handler({
        model: request.model,
        messages: request.messages,
        tools: request.tools,
        systemPrompt: request.systemPrompt,
        systemMessage: request.systemMessage,
        toolChoice: request.toolChoice,
        state: request.state,
        runtime: request.runtime,
      } as typeof request);
    },
    wrapToolCall: async (request, handler) => {
      log.push(`w.tool count=${(request.state as { w_count?: number }).w_count}`);
      return handler(request);
    },
  });
  const v = createMiddleware({
    name: "v",
    stateSchema: schema,
    beforeModel: () => ({ tally: ["v"] }),
    wrapModelCall: async (request, handler) => {
      const state = request.state as State;
      log.push(`v.wrap tally=${(state.tally ?? []).join(",")} messages=${state.messages.length}`);
      return handler(request);
    },
  });
  return [w, v];
}

test("composed: members' model wrappers see their own channels without langchain parsing the state for each", async () => {
  const plain = await run(stateful, script(), false);
  const composed = await run(stateful, script(), true);
  assert.deepEqual(composed.log, plain.log);
  assert.deepEqual(plain.log, [
    "w.wrap count=1 keys=messages,w_count",
    "v.wrap tally=v messages=1",
    "w.tool count=1",
    "w.wrap count=2 keys=messages,w_count",
    "v.wrap tally=v,v messages=3",
  ]);
  // langchain builds and runs a partial zod schema per model call for every wrapper with a state schema:
  // only the composed middleware keeps one.
  const list = composeChain(stateful([]));
  assert.deepEqual(
    list.filter((entry) => entry.stateSchema !== undefined).map((entry) => entry.name),
    [COMPOSED_CHAIN_NAME],
  );
});

test("composed afterModel inside the model call writes only what its hooks returned", async () => {
  const member = createMiddleware({
    name: "m",
    stateSchema: schema,
    beforeModel: () => ({ tally: ["m"] }),
    afterModel: () => ({ note: "seen" }),
  });
  const checkpointer = new MemorySaver();
  const agent = createAgent({
    model: new ScriptedChatModel([{ content: "done", id: "ai-1" }]),
    tools: [],
    stateSchema: schema,
    middleware: composeChain([member], undefined, { afterModelInModelCall: true }),
    checkpointer,
  });
  const config = { configurable: { thread_id: "t" } };
  await agent.invoke({ messages: [new HumanMessage({ id: "u-1", content: "hello" })] }, config);
  const versions: Record<string, unknown>[] = [];
  for await (const tuple of checkpointer.list(config)) versions.unshift(tuple.checkpoint.channel_versions);
  // The last step is the model's: it wrote the answer and `note`; `tally`, only read there, kept its version.
  const [before, model] = versions.slice(-2) as [Record<string, unknown>, Record<string, unknown>];
  assert.notEqual(model.messages, before.messages);
  assert.notEqual(model.note, before.note);
  assert.equal(model.tally, before.tally);
  assert.deepEqual(((await agent.graph.getState(config)).values as State).tally, ["m"]);
});
