import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { ALLOWED_HEADERS, corsPolicy, EXPOSED_HEADERS } from "./security.js";

/** An app behind `corsPolicy(origins)` with routes answering in the ways routes do. */
function app(origins: string[]) {
  const api = new Hono();
  api.use("*", corsPolicy(origins));
  api.post("/json", (c) => {
    c.header("x-pagination-total", "3");
    return c.json({ ok: true });
  });
  api.get("/body", (c) => c.body("[]", 200, { "content-type": "application/json", "x-pagination-next": "2" }));
  api.get("/stream", () => new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } }));
  // Its headers are immutable (as a response `fetch` returned would be).
  api.get("/redirect", () => Response.redirect("http://127.0.0.1/elsewhere", 302));
  api.get("/fails", () => {
    throw new Error("boom");
  });
  api.onError((_error, c) => c.json({ detail: "failed" }, 500));
  return api;
}

test("any origin: every answer carries the CORS headers beside its own, however the route answered", async () => {
  const any = app(["*"]);
  const origin = { origin: "http://localhost:3000" };
  for (const [method, path] of [
    ["POST", "/json"],
    ["GET", "/body"],
    ["GET", "/stream"],
    ["GET", "/redirect"],
    ["GET", "/fails"],
    ["GET", "/missing"],
  ] as const) {
    const response = await any.request(path, { method, headers: origin });
    assert.equal(response.headers.get("access-control-allow-origin"), "*", path);
    assert.equal(response.headers.get("access-control-expose-headers"), EXPOSED_HEADERS.join(","), path);
    assert.equal(response.headers.get("vary"), null, path);
  }
  const json = await any.request("/json", { method: "POST", headers: origin });
  assert.equal(json.headers.get("x-pagination-total"), "3");
  assert.deepEqual(await json.json(), { ok: true });
  const body = await any.request("/body", { headers: origin });
  assert.equal(body.headers.get("x-pagination-next"), "2");
  assert.equal(body.headers.get("content-type"), "application/json");
  assert.equal((await any.request("/redirect")).headers.get("location"), "http://127.0.0.1/elsewhere");
  assert.equal((await any.request("/fails")).status, 500);
});

test("any origin: an OPTIONS request is a preflight answered with 204 and what may be sent", async () => {
  const preflight = await app(["*"]).request("/json", {
    method: "OPTIONS",
    headers: { origin: "http://localhost:3000", "access-control-request-method": "POST" },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
  assert.equal(preflight.headers.get("access-control-allow-methods"), "GET,POST,PUT,PATCH,DELETE,OPTIONS");
  assert.equal(preflight.headers.get("access-control-allow-headers"), ALLOWED_HEADERS.join(","));
  assert.equal(preflight.headers.get("access-control-max-age"), "600");
  assert.equal(preflight.headers.get("vary"), "Access-Control-Request-Headers");
  assert.equal(preflight.headers.get("content-type"), null);
  assert.equal(await preflight.text(), "");
});

test("listed origins: a listed one is echoed, another gets no Allow-Origin; both vary by Origin", async () => {
  const listed = app(["http://app.example", "http://localhost:3000"]);
  const allowed = await listed.request("/json", { method: "POST", headers: { origin: "http://app.example" } });
  assert.equal(allowed.headers.get("access-control-allow-origin"), "http://app.example");
  assert.equal(allowed.headers.get("vary"), "Origin");
  const foreign = await listed.request("/json", { method: "POST", headers: { origin: "http://evil.example" } });
  assert.equal(foreign.headers.get("access-control-allow-origin"), null);
  assert.equal(foreign.headers.get("vary"), "Origin");
  assert.equal((await listed.request("/body")).headers.get("access-control-allow-origin"), null, "no Origin header");
  const preflight = await listed.request("/json", { method: "OPTIONS", headers: { origin: "http://localhost:3000" } });
  assert.equal(preflight.headers.get("access-control-allow-origin"), "http://localhost:3000");
  assert.equal(preflight.headers.get("vary"), "Origin, Access-Control-Request-Headers");
});
