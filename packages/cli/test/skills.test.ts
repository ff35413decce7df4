/**
 * `deerflow skills` as a user runs it: install a .skill archive, see it listed, have the agent follow
 * it (read on demand, and slash-activated), switch it off; hostile archives refused with the reason
 * and nothing written. The built CLI runs as a subprocess against the fake OpenAI server.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { createTempHome, skillMd, startFakeOpenAIServer, type TempHome, writeArchive } from "@deerflow/harness/testing";
import { deerflow } from "./run-cli.js";

const dirs: TempHome[] = [];
after(() => dirs.forEach((dir) => dir.cleanup()));
function project(url = "http://127.0.0.1:9/v1"): string {
  const dir = createTempHome({ prefix: "df-cli-skills-" });
  dirs.push(dir);
  writeFileSync(
    path.join(dir.path, "config.yaml"),
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${url}', max_retries: 0}\nsandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
  );
  return dir.path;
}
const HAIKU = skillMd(
  "haiku-writer",
  "Writes a haiku into outputs and presents it.",
  "# Haiku writer\n\n1. Write three lines (5, 7, 5 syllables) to /mnt/user-data/outputs/haiku.txt.\n2. Present the file.\n",
);
const threadOf = (stderr: string) => /thread: ([\w-]+)/.exec(stderr)![1]!;

test("install a .skill archive, see it in skills list, and the agent follows it", async () => {
  const cwd = project();
  const archive = writeArchive(path.join(cwd, "haiku-writer.skill"), {
    "haiku-writer/SKILL.md": HAIKU,
    "haiku-writer/examples.md": "old pond / frog",
  });
  const installed = await deerflow(cwd, ["skills", "install", "haiku-writer.skill"]);
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(
    installed.stderr,
    new RegExp(`Installed haiku-writer in ${path.join(cwd, "skills", "custom", "haiku-writer")} \\(2 files\\)`),
  );
  assert.ok(existsSync(archive));

  const list = await deerflow(cwd, ["skills", "list"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^haiku-writer\s+custom\s+enabled\s+Writes a haiku into outputs and presents it\.$/m);
  assert.match(list.stdout, /^deep-research\s+public\s+enabled/m);

  const haiku = "Rain on the tin roof\nthe kettle starts its slow song\nnobody answers";
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      {
        tool_calls: [
          {
            name: "read_file",
            arguments: { description: "load skill", path: "/mnt/skills/custom/haiku-writer/SKILL.md" },
          },
        ],
      },
      {
        tool_calls: [
          {
            name: "write_file",
            arguments: { description: "haiku", path: "/mnt/user-data/outputs/haiku.txt", content: haiku },
          },
        ],
      },
      { tool_calls: [{ name: "present_files", arguments: { filepaths: ["/mnt/user-data/outputs/haiku.txt"] } }] },
      { content: "Your haiku is in haiku.txt." },
      {
        tool_calls: [
          {
            name: "write_file",
            arguments: { description: "haiku", path: "/mnt/user-data/outputs/haiku.txt", content: haiku },
          },
        ],
      },
      { tool_calls: [{ name: "present_files", arguments: { filepaths: ["/mnt/user-data/outputs/haiku.txt"] } }] },
      { content: "Done." },
    ],
  });
  try {
    writeFileSync(
      path.join(cwd, "config.yaml"),
      readFileSync(path.join(cwd, "config.yaml"), "utf8").replace("http://127.0.0.1:9/v1", server.url),
    );
    const run = await deerflow(cwd, ["run", "write me a haiku about rain"]);
    assert.equal(run.code, 0, run.stderr);
    const system = JSON.stringify(server.requests[0]!.messages[0]);
    assert.match(
      system,
      /<name>haiku-writer<\/name>.*<location>\/mnt\/skills\/custom\/haiku-writer\/SKILL\.md<\/location>/,
    );
    assert.match(
      JSON.stringify(server.requests[1]!.messages.at(-1)),
      /# Haiku writer.*Write three lines/,
      "the skill body came back from read_file",
    );
    const output = path.join(cwd, ".deer-flow", "threads", threadOf(run.stderr), "user-data", "outputs", "haiku.txt");
    assert.equal(readFileSync(output, "utf8"), haiku);
    assert.match(run.stderr, /artifacts:\n {2}\/mnt\/user-data\/outputs\/haiku\.txt/);

    const slash = await deerflow(cwd, ["run", "/haiku-writer about snow"]);
    assert.equal(slash.code, 0, slash.stderr);
    const sent = JSON.stringify(server.requests[4]!.messages);
    assert.match(sent, /slash_skill_activation.*# Haiku writer/, "slash activation put the body into the request");
    assert.match(
      JSON.stringify(server.requests[4]!.messages.at(-1)),
      /"\/haiku-writer about snow"/,
      "the user's message is kept as typed",
    );
    assert.equal(server.rejected.length, 0);
  } finally {
    await server.close();
  }
});

test("disable and enable persist in extensions_config.json next to keys the CLI does not own", async () => {
  const cwd = project();
  writeFileSync(
    path.join(cwd, "extensions_config.json"),
    JSON.stringify({ mcpServers: { fs: { enabled: true, command: "npx" } } }),
  );
  const off = await deerflow(cwd, ["skills", "disable", "deep-research"]);
  assert.equal(off.code, 0, off.stderr);
  assert.deepEqual(JSON.parse(readFileSync(path.join(cwd, "extensions_config.json"), "utf8")), {
    mcpServers: { fs: { enabled: true, command: "npx" } },
    skills: { "deep-research": { enabled: false } },
  });
  assert.match((await deerflow(cwd, ["skills", "list"])).stdout, /^deep-research\s+public\s+disabled/m);
  assert.equal((await deerflow(cwd, ["skills", "enable", "deep-research"])).code, 0);
  assert.match((await deerflow(cwd, ["skills", "list"])).stdout, /^deep-research\s+public\s+enabled/m);
  const missing = await deerflow(cwd, ["skills", "enable", "no-such-skill"]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /No skill named "no-such-skill" is installed\. Installed: data-analysis, deep-research, report-writer\./,
  );
});

test("hostile archives are refused with the reason and nothing is written", async () => {
  const cwd = project();
  const custom = path.join(cwd, "skills", "custom");
  const ok = skillMd("evil");
  const cases: Array<[string, Parameters<typeof writeArchive>[1], RegExp]> = [
    ["abs", { "SKILL.md": ok, "/tmp/evil.txt": "x" }, /"\/tmp\/evil\.txt" is an absolute path/],
    ["dotdot", { "SKILL.md": ok, "../evil.txt": "x" }, /climbs out of the skill folder/],
    ["symlink", { "SKILL.md": ok, passwd: { data: "/etc/passwd", mode: 0o120777 } }, /"passwd" is a symlink/],
    [
      "huge",
      { "SKILL.md": ok, "noise.bin": { data: randomBytes(21 * 1024 * 1024), level: 0 } },
      /the archive is 21\.0 MiB, more than the 20\.0 MiB limit/,
    ],
    ["bomb", { "SKILL.md": ok, zeros: { data: new Uint8Array(40 * 1024 * 1024), level: 9 } }, /looks like a zip bomb/],
    ["no-skill-md", { "readme.md": "hi" }, /no SKILL\.md/],
    ["bad-frontmatter", { "SKILL.md": "---\nname: evil\n---\n" }, /frontmatter description: is required/],
  ];
  for (const [name, entries, reason] of cases) {
    writeArchive(path.join(cwd, `${name}.skill`), entries);
    const result = await deerflow(cwd, ["skills", "install", `${name}.skill`]);
    assert.equal(result.code, 2, `${name}: ${result.stderr}`);
    assert.match(result.stderr, reason, name);
    assert.match(result.stderr, /Nothing was written\./);
    assert.ok(!existsSync(custom), `${name}: nothing written`);
  }
  assert.ok(!existsSync(path.join(cwd, "..", "evil.txt")) && !existsSync("/tmp/evil.txt"));

  writeArchive(path.join(cwd, "v1.skill"), { "SKILL.md": skillMd("tidy", "one") });
  writeArchive(path.join(cwd, "v2.skill"), { "SKILL.md": skillMd("tidy", "two") });
  assert.equal((await deerflow(cwd, ["skills", "install", "v1.skill"])).code, 0);
  const again = await deerflow(cwd, ["skills", "install", "v2.skill"]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /a skill named "tidy" is already installed at .*; pass --force to replace it/);
  assert.match(readFileSync(path.join(custom, "tidy", "SKILL.md"), "utf8"), /description: one/);
  const forced = await deerflow(cwd, ["skills", "install", "v2.skill", "--force"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stderr, /Replaced tidy/);
  assert.match(readFileSync(path.join(custom, "tidy", "SKILL.md"), "utf8"), /description: two/);
  assert.deepEqual(readdirSync(custom), ["tidy"]);
});
