import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { extractSkills, skillReadPath } from "./skill-capture.js";

const options = { skillsContainerPath: "/mnt/skills", skillReadToolNames: ["read_file", "read"] };
const read = (id: string, path: string, name = "read_file") =>
  new AIMessage({ content: "", tool_calls: [{ id, name, args: { path } }] });
const stamped = (id: string, path: string, description: string) =>
  new ToolMessage({
    content: "# BODY that must never be stored",
    tool_call_id: id,
    additional_kwargs: { skill_context_entry: { path, description } },
  });

test("only normalized paths under the container ending in SKILL.md are skill reads", () => {
  assert.equal(
    skillReadPath({ path: "/mnt/skills/public/deep-research/SKILL.md" }, "/mnt/skills"),
    "/mnt/skills/public/deep-research/SKILL.md",
  );
  assert.equal(
    skillReadPath({ file_path: "/mnt/skills/public/x/../y/SKILL.md" }, "/mnt/skills/"),
    "/mnt/skills/public/y/SKILL.md",
  );
  assert.equal(skillReadPath({ path: "/mnt/skills/../user-data/SKILL.md" }, "/mnt/skills"), null);
  assert.equal(skillReadPath({ path: "/mnt/skills-evil/a/SKILL.md" }, "/mnt/skills"), null);
  assert.equal(skillReadPath({ path: "/mnt/skills/a/README.md" }, "/mnt/skills"), null);
  assert.equal(skillReadPath({ path: "skills/a/SKILL.md" }, "/mnt/skills"), null);
});

test("a successful stamped read records name, path and description, never the body", () => {
  const path = "/mnt/skills/public/deep-research/SKILL.md";
  const { entries, skipped } = extractSkills(
    [new HumanMessage("go"), read("c1", path), stamped("c1", path, "Deep\n research  skill")],
    options,
  );
  assert.deepEqual(entries, [{ name: "deep-research", path, description: "Deep research skill", loaded_at: 2 }]);
  assert.deepEqual(skipped, []);
  assert.ok(!JSON.stringify(entries).includes("BODY"));
});

test("failed reads, other tools, pending reads and unstamped results do not count", () => {
  const path = "/mnt/skills/public/a/SKILL.md";
  const messages = [
    read("c1", path),
    new ToolMessage({
      content: "Error: not found",
      tool_call_id: "c1",
      status: "error",
      additional_kwargs: { skill_context_entry: { path, description: "d" } },
    }),
    read("c1b", path),
    new ToolMessage({ content: "Error: File not found: /mnt/skills/public/a/SKILL.md", tool_call_id: "c1b" }),
    read("c2", path, "bash"),
    stamped("c2", path, "via bash"),
    read("c3", path),
    read("c4", path),
    new ToolMessage({ content: "body", tool_call_id: "c4" }),
    read("c5", path),
    stamped("c5", "/mnt/skills/public/other/SKILL.md", "mismatch"),
  ];
  const { entries, skipped } = extractSkills(messages, options);
  assert.deepEqual(entries, []);
  assert.deepEqual(
    skipped.map((s) => [s.toolCallId, s.reason]),
    [
      ["c4", "no skill_context_entry on the result"],
      ["c5", "skill_context_entry names another path"],
    ],
  );
});

test("a re-read moves the skill after the others", () => {
  const a = "/mnt/skills/public/a/SKILL.md";
  const b = "/mnt/skills/custom/b/SKILL.md";
  const messages = [
    read("c1", a),
    stamped("c1", a, "A"),
    read("c2", b),
    stamped("c2", b, "B"),
    read("c3", a),
    stamped("c3", a, "A2"),
  ];
  assert.deepEqual(
    extractSkills(messages, options).entries.map((e) => [e.name, e.description]),
    [
      ["b", "B"],
      ["a", "A2"],
    ],
  );
});
