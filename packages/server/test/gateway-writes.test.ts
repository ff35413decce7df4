/**
 * The gateway's write routes over real HTTP: `PUT /api/mcp/config` (off by default, stdio commands only
 * from the allow-list, admin keys, other keys of extensions_config.json kept, secrets never echoed) and
 * `POST /api/skills/install` (real `.skill` archives, hostile ones refused with nothing written).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { type Zippable, zipSync } from "fflate";
import { tempHome } from "@deerflow/harness/testing";
import { startTestServer } from "./helpers.js";

const KEY = "user-key-0123456789abcdef";
const ADMIN = "admin-key-0123456789abcdef";

const put = (body: unknown, key?: string): RequestInit => ({
  method: "PUT",
  headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) },
  body: JSON.stringify(body),
});

test("mcp/config PUT is 403 with how to enable it when server.mcp_config_writes is off; the file is untouched", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "mcp-write-" });
  const extensions = path.join(dir, "extensions_config.json");
  fs.writeFileSync(extensions, JSON.stringify({ skills: { a: { enabled: false } } }));
  const t = await startTestServer({ harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: extensions } });
  try {
    const response = await fetch(
      `${t.url}/api/mcp/config`,
      put({ mcpServers: { web: { type: "http", url: "http://127.0.0.1:1/mcp" } } }),
    );
    assert.equal(response.status, 403);
    assert.match(((await response.json()) as { detail: string }).detail, /server\.mcp_config_writes: true/);
    assert.deepEqual(JSON.parse(fs.readFileSync(extensions, "utf8")), { skills: { a: { enabled: false } } });
  } finally {
    await t.close();
  }
});

test("mcp/config PUT writes mcpServers atomically, keeps other keys, refuses stdio commands not allow-listed, masks secrets", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "mcp-write-" });
  const extensions = path.join(dir, "extensions_config.json");
  fs.writeFileSync(
    extensions,
    JSON.stringify({
      skills: { a: { enabled: false } },
      mcpServers: { old: { type: "http", url: "http://127.0.0.1:1/old" } },
    }),
  );
  const t = await startTestServer({
    yaml: "server: {mcp_config_writes: true, mcp_stdio_allow: ['@modelcontextprotocol/server-filesystem']}",
    harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: extensions },
  });
  try {
    const refused = await fetch(
      `${t.url}/api/mcp/config`,
      put({ mcpServers: { evil: { type: "stdio", command: "bash", args: ["-c", "touch /tmp/pwned"] } } }),
    );
    assert.equal(refused.status, 422);
    const detail = ((await refused.json()) as { detail: string }).detail;
    assert.match(detail, /"bash -c touch \/tmp\/pwned"/);
    assert.match(detail, /server\.mcp_stdio_allow/);
    const inferred = await fetch(`${t.url}/api/mcp/config`, put({ mcpServers: { sneaky: { command: "sh" } } }));
    assert.equal(inferred.status, 422, "a stdio server without an explicit type is checked too");
    const invalid = await fetch(`${t.url}/api/mcp/config`, put({ mcpServers: { web: { type: "http" } } }));
    assert.equal(invalid.status, 422, "an http server without url");
    assert.match(((await invalid.json()) as { detail: string }).detail, /url/);
    assert.deepEqual(
      JSON.parse(fs.readFileSync(extensions, "utf8")).mcpServers,
      { old: { type: "http", url: "http://127.0.0.1:1/old" } },
      "nothing written by refused requests",
    );

    const servers = {
      fs: {
        type: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
        env: { TOKEN: "stdio-secret" },
      },
      web: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer header-secret" } },
    };
    const saved = await fetch(`${t.url}/api/mcp/config`, put({ mcpServers: servers }));
    assert.equal(saved.status, 200);
    const text = await saved.text();
    assert.ok(!text.includes("stdio-secret") && !text.includes("header-secret"), "secrets are not echoed");
    const body = JSON.parse(text) as {
      mcp_servers: Record<string, Record<string, unknown>>;
      restart_required: boolean;
      writable: boolean;
    };
    assert.equal(body.restart_required, true);
    assert.equal(body.writable, true);
    assert.deepEqual(Object.keys(body.mcp_servers).sort(), ["fs", "web"]);
    assert.deepEqual(body.mcp_servers.fs!.env, { TOKEN: "***" });
    const file = JSON.parse(fs.readFileSync(extensions, "utf8")) as Record<string, unknown>;
    assert.deepEqual(file.skills, { a: { enabled: false } }, "other keys kept");
    assert.deepEqual(file.mcpServers, servers);
    assert.deepEqual(fs.readdirSync(dir), ["extensions_config.json"], "no temp file left");
  } finally {
    await t.close();
  }
});

test("mcp/config PUT with admin_api_keys: a plain key may read but not write; an admin key may write", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "mcp-write-" });
  const extensions = path.join(dir, "extensions_config.json");
  const t = await startTestServer({
    yaml: `server: {api_keys: ['${KEY}'], admin_api_keys: ['${ADMIN}'], mcp_config_writes: true}`,
    harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: extensions },
  });
  const servers = { mcpServers: { web: { type: "http", url: "http://127.0.0.1:1/mcp" } } };
  try {
    assert.equal((await fetch(`${t.url}/api/mcp/config`, put(servers))).status, 401, "no key");
    assert.equal(
      (await fetch(`${t.url}/api/mcp/config`, { headers: { "x-api-key": KEY } })).status,
      200,
      "a plain key reads",
    );
    const denied = await fetch(`${t.url}/api/mcp/config`, put(servers, KEY));
    assert.equal(denied.status, 403);
    assert.match(((await denied.json()) as { detail: string }).detail, /admin_api_keys/);
    assert.ok(!fs.existsSync(extensions));
    assert.equal((await fetch(`${t.url}/api/mcp/config`, put(servers, ADMIN))).status, 200);
    assert.deepEqual(JSON.parse(fs.readFileSync(extensions, "utf8")), servers);
  } finally {
    await t.close();
  }
});

/** A ZIP archive; an entry may carry a Unix mode (0o120777: symlink), as a hostile archive would. */
function archive(entries: Record<string, string | { data: string; mode: number }>): Uint8Array {
  const zippable: Zippable = {};
  for (const [name, value] of Object.entries(entries)) {
    const entry = typeof value === "string" ? { data: value } : value;
    zippable[name] = [
      new TextEncoder().encode(entry.data),
      "mode" in entry ? { os: 3, attrs: entry.mode * 65536 } : {},
    ];
  }
  return zipSync(zippable);
}

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nFollow these steps.\n`;

function install(url: string, bytes: Uint8Array, query = "", key?: string): Promise<Response> {
  const form = new FormData();
  form.append("file", new Blob([bytes]), "report-writer.skill");
  return fetch(`${url}/api/skills/install${query}`, {
    method: "POST",
    body: form,
    headers: key ? { "x-api-key": key } : {},
  });
}

test("skills/install: a good archive installs, shows in the list and reloads; hostile ones are 422 with nothing written; an installed name is 409 without force", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "skill-install-" });
  const skillsPath = path.join(dir, "skills");
  fs.mkdirSync(path.join(skillsPath, "public"), { recursive: true });
  const custom = path.join(skillsPath, "custom");
  const t = await startTestServer({
    yaml: `skills: {path: '${skillsPath}'}`,
    harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: path.join(dir, "extensions_config.json") },
  });
  try {
    const good = await install(
      t.url,
      archive({
        "report-writer/SKILL.md": skillMd("report-writer", "Writes reports."),
        "report-writer/template.md": "# Title\n",
      }),
    );
    assert.equal(good.status, 201);
    const created = (await good.json()) as { name: string; description: string; category: string; enabled: boolean };
    assert.deepEqual(
      [created.name, created.description, created.category, created.enabled],
      ["report-writer", "Writes reports.", "custom", true],
    );
    assert.equal(fs.readFileSync(path.join(custom, "report-writer", "template.md"), "utf8"), "# Title\n");
    const list = (await (await fetch(`${t.url}/api/skills`)).json()) as { skills: Array<{ name: string }> };
    assert.ok(list.skills.some((skill) => skill.name === "report-writer"));
    assert.ok(
      fs.existsSync(path.join(t.harness.setup.skills.viewDir, "custom", "report-writer", "SKILL.md")),
      "the harness reloaded: new sandboxes see it",
    );

    const hostile = {
      "a ../ entry": archive({ "SKILL.md": skillMd("escape", "Escapes."), "../evil.txt": "x" }),
      "a symlink": archive({ "SKILL.md": skillMd("linky", "Links."), link: { data: "/etc/passwd", mode: 0o120777 } }),
      "no SKILL.md": archive({ "README.md": "hi" }),
      "not a zip": new TextEncoder().encode("not a zip at all"),
    };
    for (const [what, bytes] of Object.entries(hostile)) {
      const response = await install(t.url, bytes);
      assert.equal(response.status, 422, what);
      const detail = ((await response.json()) as { detail: string }).detail;
      assert.match(detail, /Refused to install report-writer\.skill: .*Nothing was written/, what);
      assert.ok(!detail.includes(os.tmpdir()), `${what}: no server temp path in the message`);
    }
    assert.deepEqual(fs.readdirSync(custom), ["report-writer"], "nothing written by refused archives");
    assert.ok(!fs.existsSync(path.join(dir, "evil.txt")) && !fs.existsSync(path.join(skillsPath, "evil.txt")));

    const again = archive({ "SKILL.md": skillMd("report-writer", "Writes better reports.") });
    const conflict = await install(t.url, again);
    assert.equal(conflict.status, 409);
    const conflictDetail = ((await conflict.json()) as { detail: string }).detail;
    assert.match(conflictDetail, /\?force=true/);
    assert.ok(!conflictDetail.includes(custom), `no host path in "${conflictDetail}"`);
    assert.equal(
      ((await (await fetch(`${t.url}/api/skills/report-writer`)).json()) as { description: string }).description,
      "Writes reports.",
    );
    const replaced = await install(t.url, again, "?force=true");
    assert.equal(replaced.status, 201);
    assert.equal(((await replaced.json()) as { description: string }).description, "Writes better reports.");
    assert.ok(!fs.existsSync(path.join(custom, "report-writer", "template.md")), "replaced as a whole");

    const none = await fetch(`${t.url}/api/skills/install`, { method: "POST", body: new FormData() });
    assert.equal(none.status, 422);
  } finally {
    await t.close();
  }
});

test("skills/install: archives over 1 MiB (the JSON limit) are accepted; with admin_api_keys only an admin key installs", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "skill-install-" });
  const skillsPath = path.join(dir, "skills");
  fs.mkdirSync(path.join(skillsPath, "public"), { recursive: true });
  const t = await startTestServer({
    yaml: [`skills: {path: '${skillsPath}'}`, `server: {api_keys: ['${KEY}'], admin_api_keys: ['${ADMIN}']}`].join(
      "\n",
    ),
    apiKey: KEY,
    harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: path.join(dir, "extensions_config.json") },
  });
  try {
    // Random-looking text does not compress, so the archive itself is over 1 MiB.
    let noise = "";
    for (let i = 0; noise.length < 3_000_000; i++) noise += `${Math.random().toString(36)}${i}\n`;
    const big = archive({ "SKILL.md": skillMd("big-data", "Carries a data file."), "data.txt": noise });
    assert.ok(big.length > 1024 * 1024);
    assert.equal((await install(t.url, big)).status, 401, "no key");
    const denied = await install(t.url, big, "", KEY);
    assert.equal(denied.status, 403);
    assert.ok(!fs.existsSync(path.join(skillsPath, "custom", "big-data")));
    assert.equal((await install(t.url, big, "", ADMIN)).status, 201);
    assert.ok(fs.existsSync(path.join(skillsPath, "custom", "big-data", "data.txt")));
  } finally {
    await t.close();
  }
});
