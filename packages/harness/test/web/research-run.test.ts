/**
 * Done-when for web research: with a search provider configured (a local stand-in speaking the real
 * SearXNG / Tavily API shape), a lead-agent run searches, fetches two pages, writes a report with links
 * into outputs and presents it. The model is scripted, but it reads the URLs it fetches from the real
 * search tool's output, so the run fails if the list stops carrying usable links.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import type { BaseMessage } from "@langchain/core/messages";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { threadPaths } from "../../src/sandbox/virtual-paths.js";
import { createTempHome, ScriptedChatModel } from "../../src/testing/index.js";
import { startWebStandIn, type WebStandIn } from "../../src/testing/web-stand-in.js";

let site: WebStandIn;
before(async () => {
  site = await startWebStandIn("tvly-test");
});
after(async () => {
  await site.close();
});

const text = (message: BaseMessage) =>
  typeof message.content === "string" ? message.content : JSON.stringify(message.content);

/** The scripted researcher: search, fetch the first two results at once, write the report, present it, answer. */
function researcher(): ScriptedChatModel {
  let urls: string[] = [];
  return new ScriptedChatModel([
    { tool_calls: [{ name: "web_search", args: { query: "battery technology 2026" } }] },
    (messages) => {
      urls = [...text(messages.at(-1)!).matchAll(/^ {3}(http\S+)$/gm)].map((match) => match[1]!).slice(0, 2);
      return { tool_calls: urls.map((url) => ({ name: "web_fetch", args: { url } })) };
    },
    (messages) => {
      const pages = messages.slice(-2).map(text);
      assert.ok(
        pages.every((page) => page.includes("<external_content")),
        "fetched pages arrive marked as untrusted",
      );
      const findings = pages.map((page) => /Findings about \w+/.exec(page)?.[0] ?? "nothing");
      const content = `# Battery technology in 2026\n\n${urls.map((url, i) => `- ${findings[i]}: [source ${i + 1}](${url})`).join("\n")}\n`;
      return {
        tool_calls: [
          {
            name: "write_file",
            args: { description: "write the report", path: "/mnt/user-data/outputs/report.md", content },
          },
        ],
      };
    },
    { tool_calls: [{ name: "present_files", args: { filepaths: ["/mnt/user-data/outputs/report.md"] } }] },
    { content: "Here is the report with links to both sources: report.md." },
  ]);
}

for (const [provider, search] of [
  ["SearXNG", (base: string) => `{provider: searxng, base_url: "${base}"}`],
  ["Tavily", (base: string) => `{provider: tavily, api_key: $TAVILY_API_KEY, base_url: "${base}"}`],
] as const) {
  test(`a research run with ${provider} searches, fetches two pages and presents a report with links`, async () => {
    const home = createTempHome();
    const yaml = `sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\nweb:\n  search: ${search(site.base)}\n  allow_hosts: ["127.0.0.1:${site.port}"]\n`;
    const config = parseConfigText(yaml, { source: null, env: { TAVILY_API_KEY: "tvly-test" } });
    const model = researcher();
    const agent = await createLeadAgent(config, { home: home.path, env: {}, chatModel: model, onWarning: () => {} });
    try {
      assert.ok(agent.deerflow.toolNames.includes("web_search") && agent.deerflow.toolNames.includes("web_fetch"));
      assert.match(agent.deerflow.systemPrompt, /<web_research>[\s\S]*web_search[\s\S]*untrusted/);
      const requestsBefore = site.requests.length;
      const thread = { configurable: { thread_id: `research-${provider}` } };
      const result = await agent.invoke(
        {
          messages: [
            { role: "user", content: "Find recent sources on battery technology and summarise them into a report" },
          ],
        },
        thread,
      );
      model.assertDone();

      const toolMessages = result.messages.filter((message: BaseMessage) => message.getType() === "tool");
      assert.match(
        text(toolMessages[0]!),
        new RegExp(`Search results for "battery technology 2026" \\(${provider}, 3 results\\)`),
      );
      assert.deepEqual(
        site.requests
          .slice(requestsBefore)
          .filter((line) => line.startsWith("GET /html/"))
          .sort(),
        ["GET /html/battery", "GET /html/sodium"],
        "both pages were fetched from the stand-in",
      );
      const report = readFileSync(
        path.join(threadPaths(home.path, `research-${provider}`).outputs_path, "report.md"),
        "utf8",
      );
      assert.match(report, new RegExp(`Findings about battery: \\[source 1\\]\\(${site.base}/html/battery\\)`));
      assert.match(report, new RegExp(`Findings about sodium: \\[source 2\\]\\(${site.base}/html/sodium\\)`));
      assert.deepEqual(result.artifacts, ["/mnt/user-data/outputs/report.md"]);
      assert.match(text(result.messages.at(-1)!), /report with links/);
    } finally {
      await agent.close();
      home.cleanup();
    }
  });
}

test("without a provider the run has web_fetch only and the prompt never mentions web_search", async () => {
  const home = createTempHome();
  const config = parseConfigText("sandbox: {use: local}\nmemory: {enabled: false}\n", { source: null, env: {} });
  const agent = await createLeadAgent(config, {
    home: home.path,
    env: { TAVILY_API_KEY: "set-but-unused" },
    checkpointer: false,
    onWarning: () => {},
  });
  try {
    assert.ok(!agent.deerflow.toolNames.includes("web_search"));
    assert.ok(agent.deerflow.toolNames.includes("web_fetch"));
    assert.doesNotMatch(agent.deerflow.systemPrompt, /web_search/);
    const off = parseConfigText("sandbox: {use: local}\nmemory: {enabled: false}\nweb: {fetch: {enabled: false}}\n", {
      source: null,
      env: {},
    });
    const bare = await createLeadAgent(off, { home: home.path, env: {}, checkpointer: false, onWarning: () => {} });
    await bare.close();
    assert.doesNotMatch(bare.deerflow.systemPrompt, /web_research|web_fetch/);
  } finally {
    await agent.close();
    home.cleanup();
  }
});
