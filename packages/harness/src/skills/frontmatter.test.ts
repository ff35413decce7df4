import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSkillFile } from "./frontmatter.js";

const file = (yaml: string, body = "# Body\n") => `---\n${yaml}\n---\n${body}`;

test("DeerFlow's ten keys are accepted and the body is returned as written", () => {
  const parsed = parseSkillFile(
    file(
      "name: deep-research\ndescription: Research things.\nlicense: MIT\nallowed-tools: [web_search]\nrequired-secrets: [API_TOKEN, {name: OTHER, optional: true}]\nsecrets-autonomous: false\nmetadata: {a: 1}\ncompatibility: any\nversion: 2\nauthor: me",
    ),
    { strict: true },
  );
  assert.ok(!("error" in parsed), JSON.stringify(parsed));
  assert.equal(parsed.frontmatter.name, "deep-research");
  assert.deepEqual(parsed.frontmatter["required-secrets"], ["API_TOKEN", { name: "OTHER", optional: true }]);
  assert.equal(parsed.body, "# Body\n");
});

test("unknown keys: kept when reading a skill on disk, refused for an install", () => {
  const text = file("name: x\ndescription: d\nallowed_tools: [bash]");
  const lenient = parseSkillFile(text);
  assert.ok(!("error" in lenient) && (lenient.frontmatter as Record<string, unknown>).allowed_tools);
  assert.deepEqual(parseSkillFile(text, { strict: true }), {
    error:
      "frontmatter key allowed_tools not allowed (allowed: name, description, license, allowed-tools, required-secrets, secrets-autonomous, metadata, compatibility, version, author)",
  });
});

test("each broken frontmatter gets a sentence naming the key", () => {
  const cases: Array<[string, string]> = [
    ["# no frontmatter", "SKILL.md must start with a --- frontmatter block holding name: and description:"],
    [file("name: [unclosed"), "the frontmatter is not valid YAML"],
    [file("description: d"), "frontmatter name: is required"],
    [file("name: x"), "frontmatter description: is required"],
    [
      file("name: Deep_Research\ndescription: d"),
      "frontmatter name: hyphen-case lowercase letters and digits, e.g. deep-research",
    ],
    [file(`name: ${"a".repeat(65)}\ndescription: d`), "frontmatter name: at most 64 characters"],
    [file("name: x\ndescription: '  '"), "frontmatter description: must not be empty"],
    [file("name: x\ndescription: see <b>this</b>"), "frontmatter description: must not contain < or >"],
    [file("name: x\ndescription: d\nrequired-secrets: ['bad-name']"), "frontmatter required-secrets.0"],
    [file("- a\n- b"), "frontmatter"],
  ];
  for (const [text, expected] of cases) {
    const parsed = parseSkillFile(text);
    assert.ok("error" in parsed, text);
    assert.ok(parsed.error.startsWith(expected), `${text}\n→ ${parsed.error}`);
  }
});
