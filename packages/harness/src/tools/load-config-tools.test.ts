import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../errors.js";
import { loadConfigTools } from "./load-config-tools.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../test/fixtures");
const load = (use: string, name = "shout", warnings: string[] = []) =>
  loadConfigTools([{ name, use }], fixtures, (w) => warnings.push(w));

test("loads a tool export and a factory export relative to the config file", async () => {
  const [shout] = await load("./config-tools.mjs:shout");
  assert.equal(await shout!.invoke({ text: "hi" }), "HI");
  const [ping] = await load("./config-tools.mjs:makeTools", "ping");
  assert.equal(ping!.name, "ping");
});

test("a name that differs from the tool's own name warns", async () => {
  const warnings: string[] = [];
  await load("./config-tools.mjs:shout", "yell", warnings);
  assert.match(warnings[0]!, /"yell" loads a tool named "shout"/);
});

test("bad entries fail with the entry named", async () => {
  await assert.rejects(
    load("no-colon"),
    (e: unknown) => e instanceof ConfigError && /must be module:export/.test(e.message),
  );
  await assert.rejects(
    load("./missing.mjs:x"),
    (e: unknown) => e instanceof ConfigError && /cannot import "\.\/missing\.mjs"/.test(e.message),
  );
  await assert.rejects(
    load("./config-tools.mjs:nope"),
    (e: unknown) => e instanceof ConfigError && /no export named "nope"\. Exports: .*shout/.test(e.message),
  );
  await assert.rejects(
    load("./config-tools.mjs:notATool"),
    (e: unknown) => e instanceof ConfigError && /is not a langchain tool/.test(e.message),
  );
});
