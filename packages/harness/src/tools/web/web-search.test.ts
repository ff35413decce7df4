import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { parseConfigText } from "../../config/load-config.js";
import { type Canary, startCanary, startWebStandIn, type WebStandIn } from "../../testing/web-stand-in.js";
import { createWebTools } from "./create-web-tools.js";
import { renderWebPromptSection } from "./prompt-section.js";

let site: WebStandIn;
let canary: Canary;

before(async () => {
  site = await startWebStandIn("secret-key");
  canary = await startCanary();
});
after(async () => {
  await site.close();
  await canary.close();
});

function tools(search: string, env: Record<string, string> = {}, extra = "") {
  const yaml = `web:\n  search: {${search}}\n  allow_hosts: ["127.0.0.1:${site.port}"]\n${extra}`;
  const config = parseConfigText(yaml, { source: null, env: {} });
  return Object.fromEntries(createWebTools(config.web, { env }).map((tool) => [tool.name, tool]));
}

async function call(tool: { invoke(input: unknown): Promise<unknown> } | undefined, input: unknown): Promise<string> {
  assert.ok(tool, "the tool should exist");
  return String(await tool.invoke(input));
}

test("without a provider there is no web_search, and the prompt section mentions only web_fetch", () => {
  const config = parseConfigText("", { source: null, env: {} });
  const names = createWebTools(config.web, { env: { TAVILY_API_KEY: "x" } }).map((tool) => tool.name);
  assert.deepEqual(names, ["web_fetch"]);
  const section = renderWebPromptSection(names);
  assert.match(section, /web_fetch/);
  assert.doesNotMatch(section, /web_search|image_search/);
  assert.equal(renderWebPromptSection(["bash"]), "");
});

test("Tavily: POST with a bearer key, a numbered list with dates, capped", async () => {
  const all = tools(`provider: tavily, api_key: secret-key, base_url: "${site.base}", max_results: 2`);
  const text = await call(all.web_search, { query: "battery news", max_results: 10 });
  assert.match(text, /<external_content source="Tavily search" trust="untrusted">/);
  assert.match(
    text,
    /Search results for "battery news" \(Tavily, 2 results\):\n1\. Solid-state batteries reach pilot production \(2026-10-02\)\n   http:\/\/127\.0\.0\.1:\d+\/html\/battery\n   Pilot lines opened this year\.\n2\. Sodium-ion/,
  );
  assert.doesNotMatch(text, /Recycling/, "max_results is a cap");
  assert.ok(site.requests.includes("POST /search"));
});

test("Brave: GET /res/v1/web/search with X-Subscription-Token, highlights stripped; key from the environment", async () => {
  const all = tools(`provider: brave, base_url: "${site.base}"`, { BRAVE_API_KEY: "secret-key" });
  const text = await call(all.web_search, { query: "sodium" });
  assert.match(text, /\(Brave Search, 3 results\)/);
  assert.match(
    text,
    /1\. Solid-state batteries reach pilot production \(2026-10-02\)\n.*\n   Pilot lines opened this year\./,
  );
  assert.doesNotMatch(text, /<strong>/);
  assert.ok(site.requests.some((line) => line.startsWith("GET /res/v1/web/search?q=sodium&count=5")));
});

test("SearXNG: GET /search?format=json, no key", async () => {
  const all = tools(`provider: searxng, base_url: "${site.base}"`);
  const text = await call(all.web_search, { query: "recycling" });
  assert.match(text, /\(SearXNG, 3 results\)/);
  assert.match(
    text,
    /3\. Recycling lithium at scale\n   http:\/\/127\.0\.0\.1:\d+\/html\/recycling\n   Recovery rates above 90%\./,
  );
  assert.ok(site.requests.includes("GET /search?q=recycling&format=json"));
});

test("a missing or rejected key is one clear line, not an exception", async () => {
  const missing = await call(tools(`provider: tavily, base_url: "${site.base}"`).web_search, { query: "x" });
  assert.equal(
    missing,
    "Error: web_search uses Tavily, which needs an API key, and none is set. Set web.search.api_key in config.yaml (or TAVILY_API_KEY); continue without web search for now.",
  );
  const rejected = await call(tools(`provider: tavily, api_key: wrong, base_url: "${site.base}"`).web_search, {
    query: "x",
  });
  assert.equal(
    rejected,
    "Error: Tavily rejected the API key (HTTP 401). Check web.search.api_key in config.yaml (or TAVILY_API_KEY). Continue without web search if it cannot be fixed now.",
  );
  const brave = await call(tools(`provider: brave, api_key: wrong, base_url: "${site.base}"`).web_search, {
    query: "x",
  });
  assert.match(brave, /^Error: Brave Search rejected the API key \(HTTP 401\)\./);
  assert.equal(brave.split("\n").length, 1);
});

test("a provider pointed at the local network without an allow-list entry is refused and never contacted", async () => {
  const config = parseConfigText(`web:\n  search: {provider: searxng, base_url: "http://localhost:${canary.port}"}\n`, {
    source: null,
    env: {},
  });
  const [webSearch] = createWebTools(config.web);
  assert.match(
    String(await webSearch!.invoke({ query: "x" })),
    /^Error: SearXNG search failed: Refused http:\/\/localhost:\d+: .* loopback address/,
  );
  assert.equal(canary.connections(), 0);
});

test("image_search uses each provider's image mode when turned on", async () => {
  for (const provider of ["tavily", "brave", "searxng"]) {
    const all = tools(`provider: ${provider}, api_key: secret-key, base_url: "${site.base}", image_search: true`);
    const text = await call(all.image_search, { query: "chart" });
    assert.match(text, /1\. A chart\n   image: http:\/\/127\.0\.0\.1:\d+\/img\/1\.png/, provider);
  }
  assert.equal(tools(`provider: searxng, base_url: "${site.base}"`).image_search, undefined);
});

test("bad web config fails at load or construction with a clear message", () => {
  assert.throws(
    () => parseConfigText("web: {search: {provider: searxng}}\n", { source: null, env: {} }),
    /searxng provider needs base_url/,
  );
  const config = parseConfigText("web: {allow_hosts: ['10.0.0.0/64']}\n", { source: null, env: {} });
  assert.throws(() => createWebTools(config.web), /web\.allow_hosts entry "10\.0\.0\.0\/64" is not a valid CIDR range/);
});

test("a slow provider, a SearXNG without JSON and a non-JSON answer each end in one line", async () => {
  const slow = await call(tools(`provider: searxng, base_url: "${site.base}/stall", timeout_seconds: 0.3`).web_search, {
    query: "x",
  });
  assert.match(
    slow,
    /^Error: SearXNG search failed: http:\/\/127\.0\.0\.1:\d+ did not answer in time\. \(limit 0\.3 s; web\.search\.timeout_seconds\)$/,
  );
  const noJson = await call(tools(`provider: searxng, base_url: "${site.base}/nojson"`).web_search, { query: "x" });
  assert.match(noJson, /^Error: SearXNG refused the request \(HTTP 403\)\. Enable the JSON format/);
  const html = await call(tools(`provider: searxng, base_url: "${site.base}/html"`).web_search, { query: "x" });
  assert.equal(html, "Error: SearXNG answered with something that is not JSON. Check web.search.base_url.");
});
