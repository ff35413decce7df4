/** `GET /ok` (health) and `GET /info` (what agent-chat-ui checks to say "connected"). Both need no key. */
import { readFileSync } from "node:fs";
import type { RegisterRoutes } from "../context.js";

const version = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** Registers the meta routes. */
export const registerMetaRoutes: RegisterRoutes = (api, context) => {
  api.get("/ok", async (c) => {
    if (!context.health) return c.json({ ok: true });
    // With a shared database the process is only useful while it can reach it: 503 tells a load balancer.
    const health = await context.health();
    return c.json(health, health.ok ? 200 : 503);
  });
  api.get("/info", (c) =>
    c.json({
      version,
      langgraph_js_version: version,
      context: "js",
      server: "deerflow-ts",
      flags: {
        assistants: true,
        crons: true,
        langsmith: false,
        thread_ttl: false,
        stream_namespaces: false,
        strict_resume: false,
      },
      model: context.harness.defaultModel.entry.name,
      sandbox: context.harness.sandbox.kind,
    }),
  );
};
