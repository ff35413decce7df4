import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { createTempHome } from "../testing/index.js";
import { BUNDLED_SKILLS_DIR, discoverSkills, readSkillStates, setSkillEnabled, skillRoots } from "./skill-catalog.js";
import { buildSkillsView } from "./skills-view.js";

const homes: Array<{ cleanup(): void }> = [];
after(() => homes.forEach((home) => home.cleanup()));
const skill = (name: string, description = `${name} skill`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;

function setup(files: Record<string, string>) {
  const home = createTempHome({ prefix: "df-catalog-", files });
  homes.push(home);
  return { root: home.path, skillsPath: path.join(home.path, "skills"), bundled: path.join(home.path, "bundled") };
}

test("the shipped public skills are valid and each has a body", () => {
  const skills = discoverSkills([{ category: "public", dir: BUNDLED_SKILLS_DIR }], {}, (w) => assert.fail(w));
  assert.deepEqual(
    skills.map((s) => s.name),
    ["data-analysis", "deep-research", "report-writer"],
  );
  for (const s of skills)
    assert.ok(fs.readFileSync(path.join(s.dir, "SKILL.md"), "utf8").length > 800, `${s.name} has real instructions`);
});

test("custom shadows public, {skills.path}/public adds to the bundled ones, broken skills are warned about", () => {
  const s = setup({
    "bundled/a/SKILL.md": skill("alpha", "bundled alpha"),
    "bundled/b/SKILL.md": skill("beta"),
    "skills/public/g/SKILL.md": skill("gamma"),
    "skills/custom/alpha/SKILL.md": skill("alpha", "my alpha"),
    "skills/custom/broken/SKILL.md": "no frontmatter",
    "skills/custom/alpha/nested/SKILL.md": skill("nested"),
  });
  const warnings: string[] = [];
  const skills = discoverSkills(skillRoots(s.skillsPath, s.bundled), { beta: false }, (w) => warnings.push(w));
  assert.deepEqual(
    skills.map((x) => [x.name, x.category, x.description, x.enabled]),
    [
      ["alpha", "custom", "my alpha", true],
      ["beta", "public", "beta skill", false],
      ["gamma", "public", "gamma skill", true],
    ],
  );
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /Skipping skill .*broken\/SKILL\.md: SKILL\.md must start with a --- frontmatter block/);
});

test("enabled state round-trips through extensions_config.json without touching other entries", () => {
  const s = setup({
    "extensions_config.json": JSON.stringify({
      mcpServers: { x: { command: "y" } },
      skills: { beta: { enabled: true, note: "keep" }, odd: "yes" },
    }),
  });
  const file = path.join(s.root, "extensions_config.json");
  assert.deepEqual(readSkillStates(file), { beta: true });
  setSkillEnabled(file, "beta", false);
  setSkillEnabled(file, "gamma", false);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), {
    mcpServers: { x: { command: "y" } },
    skills: { beta: { enabled: false, note: "keep" }, odd: "yes", gamma: { enabled: false } },
  });
  assert.deepEqual(readSkillStates(file), { beta: false, gamma: false });
});

test("the view holds enabled skills only, by category and name, without symlinks; the same set reuses it", () => {
  const s = setup({
    "bundled/a/SKILL.md": skill("alpha"),
    "bundled/a/scripts/run.py": "print(1)\n",
    "bundled/b/SKILL.md": skill("beta"),
    "skills/custom/mine/SKILL.md": skill("mine"),
    "secret.txt": "host secret",
  });
  fs.symlinkSync(path.join(s.root, "secret.txt"), path.join(s.skillsPath, "custom/mine/leak.txt"));
  const home = path.join(s.root, "home");
  const skills = discoverSkills(skillRoots(s.skillsPath, s.bundled), { beta: false });
  const view = buildSkillsView(home, skills);
  assert.deepEqual((fs.readdirSync(view, { recursive: true }) as string[]).sort(), [
    "custom",
    "custom/mine",
    "custom/mine/SKILL.md",
    "public",
    "public/alpha",
    "public/alpha/SKILL.md",
    "public/alpha/scripts",
    "public/alpha/scripts/run.py",
  ]);
  assert.equal(buildSkillsView(home, skills), view, "unchanged skills reuse the view");
  const changed = buildSkillsView(home, discoverSkills(skillRoots(s.skillsPath, s.bundled), {}));
  assert.notEqual(changed, view);
  assert.ok(fs.existsSync(path.join(changed, "public/beta/SKILL.md")), "enabling a skill makes a new view with it");
});
