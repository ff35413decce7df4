/**
 * How the route-enumeration test sorts the registered routes: those the matrix must reach, those that
 * hold nothing per user (each with why), admin-only ones (403 for B) and pending ones (with why).
 */

/** Routes that hold nothing of any user's, each with why it needs no per-user check. */
export const NOT_PER_USER: Record<string, string> = {
  "GET /ok": "health check, open to anyone",
  "GET /info": "server version and flags, open to anyone",
  "GET /models": "the configured models (described, never their keys), shared",
  "GET /models/:name": "one configured model, shared",
  "GET /features": "feature flags from the config",
  "GET /suggestions/config": "the suggestions settings of config.yaml, the same for everyone",
  "GET /channels/providers": "the chat platforms config.yaml sets up and whether they run, server-wide",
  "GET /channels/connections": "the configured chat platforms' bot accounts, server-wide",
  "GET /channels": "whether the configured chat platforms run, server-wide",
  "POST /channels/:provider/restart":
    "restarts a server-wide platform; admin-only (403), tested in channels-routes.test.ts",
  "POST /channels/:provider/connect": "a constant 409: channels are set up in config.yaml",
  "POST /channels/:provider/runtime-config": "a constant 409: channels are set up in config.yaml",
  "DELETE /channels/:provider/runtime-config": "a constant 409: channels are set up in config.yaml",
  "DELETE /channels/connections/:id": "a constant 409: channels are set up in config.yaml",
  "POST /channels/slack/events": "Slack's events, checked by signature; their runs are the server owner's",
  "GET /skills": "installed skills are server-wide; changing them is admin-only (checked)",
  "GET /skills/:name": "installed skills are server-wide",
  "GET /subagents": "the subagent kinds of config.yaml, server-wide and read-only",
  "GET /mcp/config": "MCP servers are server-wide; changing them is admin-only (checked)",
  "GET /memory/config": "memory settings from the config, the same for everyone",
  "GET /v1/auth/setup-status": "sign-in: whether a first admin exists",
  "POST /v1/auth/initialize": "sign-in: creates the first admin once, 409 afterwards",
  "POST /v1/auth/login/local": "sign-in",
  "POST /v1/auth/register": "sign-in (off unless auth.allow_registration)",
  "POST /v1/auth/logout": "ends the session in the caller's own cookie",
  "GET /v1/auth/providers": "sign-in options",
  "GET /v1/auth/oauth/:provider": "sign-in: starts OIDC (404 unless auth.oidc); tested in oidc-routes.test.ts",
  "GET /v1/auth/callback/:provider":
    "sign-in: finishes OIDC for the caller's own pending sign-in (its cookie); oidc-routes.test.ts",
};

/** Routes only an admin may call: B must get 403. */
export const ADMIN_ONLY = new Set([
  "GET /v1/admin/users",
  "POST /v1/admin/users",
  "PATCH /v1/admin/users/:user_id",
  "DELETE /v1/admin/users/:user_id",
  "POST /skills/install",
  "PUT /skills/:name",
  "PUT /mcp/config",
  "PUT /mcp/config/servers/:name",
  "PATCH /mcp/config/servers/:name",
  "DELETE /mcp/config/servers/:name",
]);

/** Routes not yet covered, with why (none: memory became per user). */
export const PENDING: Record<string, string> = {};

/** The registered route (of `routes`) that serves `method path`: the match with the most literal segments. */
export function routeOf(routes: string[], method: string, requestPath: string): string | undefined {
  const matches = routes.filter((route) => {
    const [routeMethod, pattern] = route.split(" ") as [string, string];
    const source = pattern
      .split("/")
      .map((part) =>
        part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    return routeMethod === method && new RegExp(`^${source}$`).test(requestPath);
  });
  const literal = (route: string) => route.split("/").filter((part) => part !== "*" && !part.startsWith(":")).length;
  return matches.sort((x, y) => literal(y) - literal(x))[0];
}
