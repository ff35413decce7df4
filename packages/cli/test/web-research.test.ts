/**
 * The web research done-when, as a new user tries it: a config.yaml with SearXNG (or a Tavily key in
 * the environment), `deerflow run "find three recent sources on X and summarise them into a report"`,
 * the real ChatOpenAI client against the fake OpenAI server, and local stand-ins for the provider and
 * the pages. The run searches, fetches, writes a report with links and presents it.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import {
  type ChatCompletionRequest,
  createTempHome,
  type FakeStep,
  startFakeOpenAIServer,
  startWebStandIn,
  type TempHome,
  type WebStandIn,
} from "@deerflow/harness/testing";
import { deerflow } from "./run-cli.js";

let site: WebStandIn;
const dirs: TempHome[] = [];
before(async () => {
  site = await startWebStandIn("tvly-from-env");
});
after(async () => {
  dirs.forEach((dir) => dir.cleanup());
  await site.close();
});

/** The model's side: search, fetch the first three results, write the report from what came back, present, answer. */
function researcher(body: ChatCompletionRequest): FakeStep {
  const toolTexts = body.messages
    .filter((message) => message.role === "tool")
    .map((message) => String(message.content));
  if (toolTexts.length === 0)
    return { tool_calls: [{ name: "web_search", arguments: { query: "solid-state battery news" } }] };
  if (toolTexts.length === 1) {
    const urls = [...toolTexts[0]!.matchAll(/^ {3}(http\S+)$/gm)].map((match) => match[1]!);
    return { tool_calls: urls.map((url) => ({ name: "web_fetch", arguments: { url } })) };
  }
  if (toolTexts.length === 4) {
    const sources = toolTexts.slice(1).map((page) => {
      const source = /<external_content source="([^"]+)"/.exec(page)?.[1] ?? "missing";
      const finding = /Findings about \w+/.exec(page)?.[0] ?? "missing";
      return `- ${finding} ([link](${source}))`;
    });
    const content = `# Battery sources\n\n${sources.join("\n")}\n`;
    return {
      tool_calls: [
        {
          name: "write_file",
          arguments: { description: "write the report", path: "/mnt/user-data/outputs/report.md", content },
        },
      ],
    };
  }
  if (toolTexts.length === 5)
    return { tool_calls: [{ name: "present_files", arguments: { filepaths: ["/mnt/user-data/outputs/report.md"] } }] };
  return { content: "The report summarises three sources, with links." };
}

for (const [provider, search, env] of [
  ["SearXNG", (base: string) => `{provider: searxng, base_url: '${base}'}`, {}],
  ["Tavily", (base: string) => `{provider: tavily, base_url: '${base}'}`, { TAVILY_API_KEY: "tvly-from-env" }],
] as const) {
  test(`deerflow run with ${provider}: searches, fetches three pages, presents a report with links`, async () => {
    const server = await startFakeOpenAIServer({ strict: true, script: researcher });
    try {
      const home = createTempHome({ prefix: "df-web-" });
      dirs.push(home);
      writeFileSync(
        path.join(home.path, "config.yaml"),
        `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${server.url}', max_retries: 0}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n` +
          `web:\n  search: ${search(site.base)}\n  allow_hosts: ['127.0.0.1:${site.port}']\n`,
      );
      const result = await deerflow(
        home.path,
        ["run", "find three recent sources on solid-state batteries and summarise them into a report"],
        { env },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(server.rejected.length, 0);
      assert.ok(
        server.requests[0]!.tools!.some((tool) => tool.function.name === "web_search"),
        "the model is offered web_search",
      );

      const thread = /thread: ([\w-]+)/.exec(result.stderr)![1]!;
      const report = readFileSync(
        path.join(home.path, ".deer-flow", "threads", thread, "user-data", "outputs", "report.md"),
        "utf8",
      );
      for (const page of ["battery", "sodium", "recycling"])
        assert.match(report, new RegExp(`Findings about ${page} \\(\\[link\\]\\(${site.base}/html/${page}\\)\\)`));
      assert.match(result.stderr, /artifacts:\n {2}\/mnt\/user-data\/outputs\/report\.md -> /);
      assert.match(result.stdout, /three sources, with links/);
    } finally {
      await server.close();
    }
  });
}
