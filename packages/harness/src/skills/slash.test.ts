import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseSlashSkill, RESERVED_SLASH_NAMES, SLASH_SKILL_PATTERN } from "./slash.js";

// The fixture is DeerFlow's contracts/slash_skill_contract.json, copied verbatim.
const fixture = JSON.parse(
  readFileSync(
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../test/skills/fixtures/slash_skill_contract.json"),
    "utf8",
  ),
) as { reserved_slash_skill_names: string[]; skill_name_pattern: string };

test("the grammar and reserved words match DeerFlow's slash_skill_contract.json", () => {
  assert.deepEqual([...RESERVED_SLASH_NAMES].sort(), [...fixture.reserved_slash_skill_names].sort());
  assert.equal(SLASH_SKILL_PATTERN.source, new RegExp(fixture.skill_name_pattern).source);
});

test("a leading /skill-name is parsed; reserved words, leading space and non-names are not", () => {
  assert.deepEqual(parseSlashSkill("/deep-research quantum batteries"), {
    name: "deep-research",
    rest: "quantum batteries",
  });
  assert.deepEqual(parseSlashSkill("/report-writer"), { name: "report-writer", rest: "" });
  assert.deepEqual(parseSlashSkill("/a1\n\nmulti\nline"), { name: "a1", rest: "multi\nline" });
  for (const name of fixture.reserved_slash_skill_names) assert.equal(parseSlashSkill(`/${name} x`), null, name);
  for (const text of [
    " /deep-research x",
    "/Deep-Research x",
    "/deep--research",
    "/-x",
    "/x-",
    "/usr/bin/env",
    "/x.y",
    "a /x",
    "/",
  ]) {
    assert.equal(parseSlashSkill(text), null, text);
  }
});
