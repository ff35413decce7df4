import { test } from "node:test";
import assert from "node:assert/strict";
import { isSkillFile, skillContextEntry } from "./skill-context-entry.js";

test("isSkillFile matches SKILL.md under /mnt/skills only", () => {
  assert.equal(isSkillFile("/mnt/skills/public/a/SKILL.md"), true);
  assert.equal(isSkillFile("/mnt/skills/public/a/skill.md"), false);
  assert.equal(isSkillFile("/mnt/user-data/workspace/SKILL.md"), false);
});

test("skillContextEntry keeps the frontmatter description only, collapsed and capped", () => {
  assert.deepEqual(
    skillContextEntry("/mnt/skills/x/SKILL.md", "---\nname: x\ndescription: |\n  Two\n  lines\n---\nbody"),
    {
      path: "/mnt/skills/x/SKILL.md",
      description: "Two lines",
    },
  );
  assert.equal(skillContextEntry("/p", `---\ndescription: ${"w ".repeat(400)}\n---\n`).description.length, 500);
  assert.equal(skillContextEntry("/p", "no frontmatter").description, "");
  assert.equal(skillContextEntry("/p", "---\ndescription: [unclosed\n---\n").description, "");
});
