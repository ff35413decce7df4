/**
 * Skills through the fully wired lead agent: what the prompt lists, what the sandbox lets the model
 * read, and slash activation across turns, with enabled state taken from extensions_config.json.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createTempHome, ScriptedChatModel, type TempHome } from "../../src/testing/index.js";

const homes: TempHome[] = [];
after(() => homes.forEach((home) => home.cleanup()));
const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n${body}\n`;

async function agentWith(model: ScriptedChatModel, extensions: object, warnings: string[] = []) {
  const home = createTempHome({
    prefix: "df-skills-agent-",
    files: {
      "skills/custom/tidy/SKILL.md": skill("tidy", "# Tidy\nSort the list alphabetically."),
      "skills/custom/sleepy/SKILL.md": skill("sleepy", "# Sleepy\nSECRET-SLEEPY-BODY"),
      "extensions_config.json": JSON.stringify(extensions),
    },
  });
  homes.push(home);
  const config = parseConfigText(
    `sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\nskills: {path: '${path.join(home.path, "skills")}'}\n`,
    { source: null, env: {} },
  );
  const env = { DEER_FLOW_EXTENSIONS_CONFIG_PATH: path.join(home.path, "extensions_config.json") };
  return createLeadAgent(config, {
    home: home.path,
    env,
    chatModel: model,
    checkpointer: new MemorySaver(),
    onWarning: (w) => warnings.push(w),
  });
}

const system = (messages: BaseMessage[]) => messages[0]!.text;

test("enabled skills are listed by category; a disabled one is neither listed nor readable", async () => {
  const model = new ScriptedChatModel([
    (messages) => {
      assert.match(
        system(messages),
        /<name>tidy<\/name>\n    <description>The tidy skill\.<\/description>\n    <location>\/mnt\/skills\/custom\/tidy\/SKILL\.md<\/location>/,
      );
      assert.match(system(messages), /<location>\/mnt\/skills\/public\/report-writer\/SKILL\.md<\/location>/);
      assert.ok(!system(messages).includes("sleepy"), "a disabled skill is not listed");
      return {
        tool_calls: [
          { name: "read_file", args: { description: "r", path: "/mnt/skills/custom/tidy/SKILL.md" } },
          { name: "read_file", args: { description: "r", path: "/mnt/skills/custom/sleepy/SKILL.md" } },
        ],
      };
    },
    (messages) => {
      const [tidy, sleepy] = messages.slice(-2).map((m) => m.text);
      assert.match(tidy!, /Sort the list alphabetically/);
      assert.match(sleepy!, /^Error: .*not found/i);
      assert.ok(!sleepy!.includes("SECRET-SLEEPY-BODY"));
      return { content: "done" };
    },
  ]);
  const agent = await agentWith(model, { skills: { sleepy: { enabled: false } } });
  try {
    await agent.invoke({ messages: [{ role: "user", content: "tidy up" }] }, { configurable: { thread_id: "a" } });
    model.assertDone();
  } finally {
    await agent.close();
  }
});

test("/tidy applies to its turn only; /sleepy (disabled) is answered without a model call; /unknown goes through", async () => {
  const activated = (messages: BaseMessage[]) => messages.some((m) => m.additional_kwargs?.slash_skill_activation);
  const model = new ScriptedChatModel([
    (messages) => {
      assert.ok(activated(messages));
      assert.match(
        messages.find((m) => m.additional_kwargs?.slash_skill_activation)!.text,
        /Sort the list alphabetically/,
      );
      return { content: "apple, banana, cherry" };
    },
    (messages) => {
      assert.ok(!activated(messages), "the next turn is back to progressive disclosure");
      return { content: "you're welcome" };
    },
    (messages) => {
      assert.ok(!activated(messages));
      assert.equal(messages.at(-1)!.text, "/unknown stays as typed");
      return { content: "ok" };
    },
  ]);
  const agent = await agentWith(model, { skills: { sleepy: { enabled: false } } });
  const config = { configurable: { thread_id: "b" } };
  try {
    await agent.invoke({ messages: [{ role: "user", content: "/tidy cherry apple banana" }] }, config);
    await agent.invoke({ messages: [{ role: "user", content: "thanks" }] }, config);
    const sleepy = await agent.invoke({ messages: [{ role: "user", content: "/sleepy now" }] }, config);
    assert.match(
      sleepy.messages.at(-1)!.text,
      /\/sleepy is installed but disabled\. Enable it with `deerflow skills enable sleepy`/,
    );
    await agent.invoke({ messages: [{ role: "user", content: "/unknown stays as typed" }] }, config);
    model.assertDone();
    const saved = (await agent.graph.getState(config)).values as { messages: BaseMessage[] };
    assert.equal(saved.messages[0]!.text, "/tidy cherry apple banana");
    assert.ok(!activated(saved.messages), "activation blocks are never checkpointed");
  } finally {
    await agent.close();
  }
});

test("a broken extensions_config.json is a warning; skills then keep their defaults", async () => {
  const warnings: string[] = [];
  const model = new ScriptedChatModel([
    (messages) => {
      assert.match(system(messages), /<name>sleepy<\/name>/);
      return { content: "ok" };
    },
  ]);
  const agent = await agentWith(model, {}, warnings);
  fs.writeFileSync(path.join(agent.deerflow.home, "extensions_config.json"), "{ not json");
  await agent.close();
  const again = await createLeadAgent(
    parseConfigText(
      `sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\nskills: {path: '${path.join(agent.deerflow.home, "skills")}'}\n`,
      { source: null, env: {} },
    ),
    {
      home: agent.deerflow.home,
      env: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: path.join(agent.deerflow.home, "extensions_config.json") },
      chatModel: model,
      checkpointer: false,
      onWarning: (w) => warnings.push(w),
    },
  );
  try {
    await again.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: "c" } });
    assert.ok(
      warnings.some((w) =>
        /extensions_config\.json is not valid JSON .* Until then skills keep their defaults/.test(w),
      ),
      warnings.join("\n"),
    );
  } finally {
    await again.close();
  }
});
