import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { ConfigError } from "../errors.js";
import { createTempHome } from "../testing/index.js";
import { findExtensionsFile, readExtensionsFile, updateExtensionsFile } from "./extensions-file.js";

const homes: Array<{ cleanup(): void }> = [];
after(() => homes.forEach((home) => home.cleanup()));
const temp = () => {
  const home = createTempHome({ prefix: "df-ext-" });
  homes.push(home);
  return home.path;
};

test("lookup order: DEER_FLOW_EXTENSIONS_CONFIG_PATH, then ./, then ../; none: ./ for a first write", () => {
  const root = temp();
  const cwd = path.join(root, "project");
  fs.mkdirSync(cwd);
  assert.deepEqual(findExtensionsFile({ env: {}, cwd }), {
    path: path.join(cwd, "extensions_config.json"),
    exists: false,
  });
  fs.writeFileSync(path.join(root, "extensions_config.json"), "{}");
  assert.deepEqual(findExtensionsFile({ env: {}, cwd }), {
    path: path.join(root, "extensions_config.json"),
    exists: true,
  });
  fs.writeFileSync(path.join(cwd, "extensions_config.json"), "{}");
  assert.deepEqual(findExtensionsFile({ env: {}, cwd }), {
    path: path.join(cwd, "extensions_config.json"),
    exists: true,
  });
  assert.deepEqual(findExtensionsFile({ env: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: "conf/ext.json" }, cwd }), {
    path: path.join(cwd, "conf/ext.json"),
    exists: false,
  });
});

test("an update keeps every key it does not own (mcpServers, unknown ones) and leaves no temp file", () => {
  const dir = temp();
  const file = path.join(dir, "extensions_config.json");
  const mcp = {
    mcpServers: { fs: { enabled: true, type: "stdio", command: "npx", args: ["-y", "x"] } },
    middlewares: [],
    future: { a: 1 },
  };
  fs.writeFileSync(file, JSON.stringify(mcp));
  updateExtensionsFile(file, (data) => ({ ...data, skills: { demo: { enabled: false } } }));
  assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), { ...mcp, skills: { demo: { enabled: false } } });
  assert.deepEqual(fs.readdirSync(dir), ["extensions_config.json"]);
});

test("a broken file is refused with its path and left exactly as it was", () => {
  const dir = temp();
  const file = path.join(dir, "extensions_config.json");
  for (const text of ['{"mcpServers": {', "[1, 2]"]) {
    fs.writeFileSync(file, text);
    assert.throws(
      () => updateExtensionsFile(file, () => ({ skills: {} })),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(
          error.message,
          new RegExp(
            `${file.replace(/[.]/g, "\\.")} (is not valid JSON|must hold a JSON object).*Fix the file or move it away\\.`,
          ),
        );
        return true;
      },
    );
    assert.equal(fs.readFileSync(file, "utf8"), text);
  }
  assert.deepEqual(readExtensionsFile(path.join(dir, "missing.json")), {});
});
