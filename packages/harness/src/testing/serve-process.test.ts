import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { tempHome } from "./temp-home.js";
import { spawnServe } from "./serve-process.js";

// A stand-in "CLI" that behaves like `deerflow serve`: prints the URL, or fails, as its argument says.
const script = `
const mode = process.argv[3];
if (mode === "fail") { console.error("bad config"); process.exit(2); }
process.on("SIGTERM", () => process.exit(0));
console.log("listening on http://127.0.0.1:4567/");
setInterval(() => {}, 1000);
`;

test("url() resolves with the printed URL and stop() ends the process", async (t) => {
  const cli = path.join(tempHome(t, { files: { "cli.mjs": script } }), "cli.mjs");
  const server = spawnServe(cli, ["ok"]);
  t.after(() => server.stop());
  assert.equal(await server.url(), "http://127.0.0.1:4567/");
  assert.equal(await server.url(), "http://127.0.0.1:4567/", "asking again answers at once");
  assert.equal(await server.stop(), 0);
  assert.equal(await server.stop(), 0, "stop after exit is harmless");
});

test("url() rejects with the server's stderr when it exits before listening", async (t) => {
  const cli = path.join(tempHome(t, { files: { "cli.mjs": script } }), "cli.mjs");
  const server = spawnServe(cli, ["fail"]);
  await assert.rejects(server.url(), /exited \(2\) before listening[\s\S]*bad config/);
  assert.equal(await server.exited, 2);
  await assert.rejects(server.url(), /bad config/, "also when asked after the exit");
});
