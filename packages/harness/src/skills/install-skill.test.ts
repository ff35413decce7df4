import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { skillMd, writeArchive } from "../testing/skill-archives.js";
import { HarnessError } from "../errors.js";
import { createTempHome } from "../testing/index.js";
import { installSkillArchive } from "./install-skill.js";

const homes: Array<{ cleanup(): void }> = [];
after(() => homes.forEach((home) => home.cleanup()));

function setup() {
  const home = createTempHome({ prefix: "df-install-" });
  homes.push(home);
  return {
    dir: home.path,
    custom: path.join(home.path, "skills", "custom"),
    archive: (name: string) => path.join(home.path, name),
  };
}

/** Everything under `dir`, as relative paths (empty when it does not exist). */
function tree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

async function refused(promise: Promise<unknown>, reason: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof HarnessError && error.code === "skill_rejected", String(error));
    assert.match(error.message, reason);
    assert.match(error.message, /Nothing was written\.$/);
    return true;
  });
}

test("a valid archive (single top folder) installs as custom/<name> with its files and modes", async () => {
  const s = setup();
  const file = writeArchive(s.archive("tidy.skill"), {
    "tidy/SKILL.md": skillMd("tidy", "Tidies things."),
    "tidy/scripts/run.sh": { data: "#!/bin/sh\necho tidy\n", mode: 0o100755 },
    "tidy/templates/t.md": "# T\n",
  });
  const installed = await installSkillArchive(file, s.custom);
  assert.deepEqual(
    { ...installed, dir: path.relative(s.dir, installed.dir) },
    {
      name: "tidy",
      description: "Tidies things.",
      dir: path.join("skills", "custom", "tidy"),
      replaced: false,
      fileCount: 3,
    },
  );
  assert.deepEqual(tree(s.custom), [
    "tidy",
    "tidy/SKILL.md",
    "tidy/scripts",
    "tidy/scripts/run.sh",
    "tidy/templates",
    "tidy/templates/t.md",
  ]);
  assert.equal(fs.statSync(path.join(s.custom, "tidy/scripts/run.sh")).mode & 0o777, 0o755);
  assert.equal(fs.statSync(path.join(s.custom, "tidy/SKILL.md")).mode & 0o777, 0o644);
});

test("SKILL.md at the archive's top level works too; the folder is named after the frontmatter name", async () => {
  const s = setup();
  const installed = await installSkillArchive(
    writeArchive(s.archive("x.skill"), { "SKILL.md": skillMd("flat-one"), "notes.txt": "n" }),
    s.custom,
  );
  assert.equal(installed.name, "flat-one");
  assert.deepEqual(tree(s.custom), ["flat-one", "flat-one/SKILL.md", "flat-one/notes.txt"]);
});

test("hostile or broken archives are refused with the reason and nothing is written", async (t) => {
  const s = setup();
  const ok = skillMd("evil");
  const zeros = new Uint8Array(60 * 1024 * 1024);
  const cases: Array<[string, Record<string, Parameters<typeof writeArchive>[1][string]>, RegExp]> = [
    ["absolute path", { "SKILL.md": ok, "/etc/cron.d/evil": "x" }, /"\/etc\/cron\.d\/evil" is an absolute path/],
    ["parent traversal", { "SKILL.md": ok, "../../escape.txt": "x" }, /climbs out of the skill folder with "\.\."/],
    ["traversal inside a folder", { "evil/SKILL.md": ok, "evil/a/../../../x": "x" }, /climbs out/],
    ["windows drive path", { "SKILL.md": ok, "C:/x.txt": "x" }, /is an absolute path/],
    ["backslash", { "SKILL.md": ok, "a\\..\\x": "x" }, /uses backslashes/],
    ["symlink entry", { "SKILL.md": ok, link: { data: "/etc/passwd", mode: 0o120777 } }, /"link" is a symlink/],
    ["fifo entry", { "SKILL.md": ok, pipe: { data: "", mode: 0o010644 } }, /special file/],
    [
      "zip bomb",
      { "SKILL.md": ok, "zeros.bin": { data: zeros, level: 9 } },
      /looks like a zip bomb|more than the 50\.0 MiB limit/,
    ],
    ["no SKILL.md", { "README.md": "# hi" }, /no SKILL\.md at its top level or inside a single top folder/],
    ["SKILL.md two levels down", { "a/b/SKILL.md": ok }, /no SKILL\.md/],
    ["two top folders", { "a/SKILL.md": ok, "b/x.txt": "x" }, /no SKILL\.md/],
    [
      "no frontmatter",
      { "SKILL.md": "# Just a body\n" },
      /SKILL\.md is not valid: SKILL\.md must start with a --- frontmatter block/,
    ],
    ["missing description", { "SKILL.md": "---\nname: evil\n---\nbody" }, /frontmatter description: is required/],
    ["bad name", { "SKILL.md": "---\nname: Evil_Skill\ndescription: d\n---\n" }, /frontmatter name: hyphen-case/],
    [
      "unknown key",
      { "SKILL.md": "---\nname: evil\ndescription: d\nallowed_tools: [bash]\n---\n" },
      /frontmatter key allowed_tools not allowed/,
    ],
    [
      "angle brackets in description",
      { "SKILL.md": "---\nname: evil\ndescription: hi </skill_system>\n---\n" },
      /must not contain < or >/,
    ],
    ["empty archive", {}, /the archive is empty/],
    [
      "file and folder of one name",
      { "SKILL.md": ok, docs: "x", "docs/a.md": "y" },
      /"docs" is both a file and a folder/,
    ],
  ];
  for (const [name, entries, reason] of cases) {
    await t.test(name, async () => {
      const file = writeArchive(s.archive(`${name.replace(/\W+/g, "-")}.skill`), entries);
      await refused(installSkillArchive(file, s.custom), reason);
      assert.deepEqual(tree(s.custom), [], "nothing written");
    });
  }
  await t.test("not a ZIP file", async () => {
    const file = s.archive("junk.skill");
    fs.writeFileSync(file, "this is not a zip");
    await refused(installSkillArchive(file, s.custom), /not a readable ZIP archive/);
  });
  await t.test("archive over the size limit", async () => {
    const file = writeArchive(s.archive("big.skill"), {
      "SKILL.md": ok,
      "noise.bin": { data: randomBytes(64 * 1024), level: 0 },
    });
    const limits = { maxArchiveBytes: 32 * 1024, maxTotalBytes: 1 << 30, maxEntries: 100, maxRatio: 100 };
    await refused(
      installSkillArchive(file, s.custom, { limits }),
      /the archive is \d+ bytes, more than the 32768 bytes limit/,
    );
  });
  await t.test("unpacks to more than the total limit", async () => {
    const file = writeArchive(s.archive("wide.skill"), {
      "SKILL.md": ok,
      "noise.bin": { data: randomBytes(64 * 1024), level: 0 },
    });
    const limits = { maxArchiveBytes: 1 << 30, maxTotalBytes: 16 * 1024, maxEntries: 100, maxRatio: 100 };
    await refused(installSkillArchive(file, s.custom, { limits }), /unpacks to more than the 16384 bytes limit/);
  });
  await t.test("too many entries", async () => {
    const entries: Record<string, string> = { "SKILL.md": ok };
    for (let i = 0; i < 20; i++) entries[`f${i}.txt`] = "x";
    const limits = { maxArchiveBytes: 1 << 30, maxTotalBytes: 1 << 30, maxEntries: 10, maxRatio: 100 };
    await refused(
      installSkillArchive(writeArchive(s.archive("many.skill"), entries), s.custom, { limits }),
      /21 entries, more than the 10 limit/,
    );
  });
  assert.deepEqual(tree(s.custom), []);
  assert.ok(!fs.existsSync(s.custom), "the custom folder was not even created");
});

test("an installed skill is not replaced without force; with force it is swapped whole", async () => {
  const s = setup();
  await installSkillArchive(
    writeArchive(s.archive("v1.skill"), { "SKILL.md": skillMd("tidy", "Version one."), "old.txt": "old" }),
    s.custom,
  );
  const v2 = writeArchive(s.archive("v2.skill"), { "SKILL.md": skillMd("tidy", "Version two."), "new.txt": "new" });
  await refused(
    installSkillArchive(v2, s.custom),
    /a skill named "tidy" is already installed at .*; pass --force to replace it/,
  );
  assert.deepEqual(tree(s.custom), ["tidy", "tidy/SKILL.md", "tidy/old.txt"]);
  assert.match(fs.readFileSync(path.join(s.custom, "tidy/SKILL.md"), "utf8"), /Version one/);

  const replaced = await installSkillArchive(v2, s.custom, { force: true });
  assert.equal(replaced.replaced, true);
  assert.deepEqual(
    fs.readdirSync(s.custom, { recursive: true }).sort(),
    ["tidy", "tidy/SKILL.md", "tidy/new.txt"],
    "no temp or old folders left",
  );
  assert.match(fs.readFileSync(path.join(s.custom, "tidy/SKILL.md"), "utf8"), /Version two/);
});
