import { test } from "node:test";
import assert from "node:assert/strict";
import { createSandboxProvider } from "../sandbox/provider.js";
import { bashAvailabilityNote, createSandboxTools } from "./sandbox-tools.js";
import { tempHome } from "../testing/temp-home.js";

test("the tool set follows the provider and the model: bash only when allowed, view_image only for vision", (t) => {
  const home = tempHome(t, { prefix: "tools-test-" });
  const options = { use: "local" as const, home, bashTimeoutSeconds: 5, bashOutputMaxChars: 100 };
  const noBash = createSandboxProvider({ ...options, allowHostBash: false });
  const names = createSandboxTools({ provider: noBash, vision: false }).map((tool) => tool.name);
  assert.deepEqual(names, ["ls", "read_file", "write_file", "str_replace", "glob", "grep", "present_files"]);
  assert.match(bashAvailabilityNote(noBash) ?? "", /allow_host_bash is false, DeerFlow's default/);
  const withBash = createSandboxProvider({ ...options, allowHostBash: true });
  assert.deepEqual(
    createSandboxTools({ provider: withBash, vision: true }).map((tool) => tool.name),
    ["bash", "ls", "read_file", "write_file", "str_replace", "glob", "grep", "present_files", "view_image"],
  );
  assert.equal(bashAvailabilityNote(withBash), null);
});

test("every sandbox tool takes description as its first argument", (t) => {
  const home = tempHome(t, { prefix: "tools-test-" });
  const provider = createSandboxProvider({
    use: "local",
    home,
    allowHostBash: true,
    bashTimeoutSeconds: 5,
    bashOutputMaxChars: 100,
  });
  for (const tool of createSandboxTools({ provider, vision: true })) {
    if (tool.name === "present_files" || tool.name === "view_image") continue;
    const keys = Object.keys((tool.schema as { shape: Record<string, unknown> }).shape);
    assert.equal(keys[0], "description", tool.name);
  }
});
