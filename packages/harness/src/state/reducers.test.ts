import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  mergeAcceptanceGaps,
  mergeArtifacts,
  mergeDelegations,
  mergeGoal,
  mergeSandbox,
  mergeSkillContext,
  mergeTaskNotes,
  mergeTodos,
  mergeToolReceipts,
  mergeViewedImages,
} from "./reducers.js";
import type { DelegationEntry, SkillEntry } from "./shapes.js";

const delegation = (
  id: string,
  status: DelegationEntry["status"],
  extra: Partial<DelegationEntry> = {},
): DelegationEntry => ({
  id,
  description: `task ${id}`,
  subagent_type: "general-purpose",
  status,
  created_at: `2026-01-01T00:00:0${id.length}Z`,
  ...extra,
});
const skill = (path: string, loaded_at = 1, description = "does things"): SkillEntry => ({
  name: path.split("/").at(-2) ?? "x",
  path,
  description,
  loaded_at,
});

describe("mergeSandbox", () => {
  test("keeps the current value when the update is empty", () => {
    assert.deepEqual(mergeSandbox({ sandbox_id: "a" }, null), { sandbox_id: "a" });
    assert.deepEqual(mergeSandbox({ sandbox_id: "a" }, undefined), { sandbox_id: "a" });
  });
  test("takes the first id and keeps the same id", () => {
    assert.deepEqual(mergeSandbox(null, { sandbox_id: "a" }), { sandbox_id: "a" });
    assert.deepEqual(mergeSandbox({ sandbox_id: "a" }, { sandbox_id: "a" }), { sandbox_id: "a" });
  });
  test("fails closed on two different ids", () => {
    assert.throws(() => mergeSandbox({ sandbox_id: "a" }, { sandbox_id: "b" }), /Conflicting sandbox state updates/);
  });
  test("is idempotent", () => {
    const x = { sandbox_id: "local:t1" };
    assert.deepEqual(mergeSandbox(x, x), x);
  });
});

describe("mergeArtifacts", () => {
  test("appends new paths in order without duplicates", () => {
    assert.deepEqual(mergeArtifacts(["/a", "/b"], ["/b", "/c", "/a"]), ["/a", "/b", "/c"]);
  });
  test("null update keeps, null current takes the update", () => {
    assert.deepEqual(mergeArtifacts(["/a"], null), ["/a"]);
    assert.deepEqual(mergeArtifacts(null, ["/a"]), ["/a"]);
  });
  test("is idempotent", () => {
    const x = ["/a", "/b"];
    assert.deepEqual(mergeArtifacts(x, x), x);
  });
});

describe("mergeTodos", () => {
  const todos = [{ content: "plan", status: "pending" as const }];
  test("replaces the list; [] clears; null keeps", () => {
    assert.deepEqual(mergeTodos(todos, [{ content: "other", status: "completed" }]), [
      { content: "other", status: "completed" },
    ]);
    assert.deepEqual(mergeTodos(todos, []), []);
    assert.deepEqual(mergeTodos(todos, null), todos);
  });
  test("is idempotent", () => {
    assert.deepEqual(mergeTodos(todos, todos), todos);
  });
});

describe("mergeViewedImages", () => {
  const a = { "/mnt/user-data/uploads/a.png": { mime_type: "image/png", size: 10, actual_path: "/h/a.png" } };
  const b = { "/mnt/user-data/uploads/b.jpg": { mime_type: "image/jpeg", size: 20, actual_path: "/h/b.jpg" } };
  test("merges by path; {} clears all; null keeps", () => {
    assert.deepEqual(mergeViewedImages(a, b), { ...a, ...b });
    assert.deepEqual(mergeViewedImages({ ...a, ...b }, {}), {});
    assert.deepEqual(mergeViewedImages(a, null), a);
  });
  test("is idempotent", () => {
    assert.deepEqual(mergeViewedImages(a, a), a);
  });
});

describe("mergeDelegations", () => {
  test("adds new entries in first-seen order and updates known ones", () => {
    const merged = mergeDelegations(
      [delegation("t1", "in_progress"), delegation("t2", "in_progress")],
      [delegation("t1", "completed", { result_brief: "done" })],
    );
    assert.deepEqual(
      merged.map((entry) => [entry.id, entry.status]),
      [
        ["t1", "completed"],
        ["t2", "in_progress"],
      ],
    );
    assert.equal(merged[0]!.result_brief, "done");
  });
  test("never downgrades a terminal status", () => {
    const merged = mergeDelegations([delegation("t1", "completed")], [delegation("t1", "in_progress")]);
    assert.equal(merged[0]!.status, "completed");
  });
  test("keeps the first created_at and a known run_id", () => {
    const merged = mergeDelegations(
      [delegation("t1", "in_progress", { run_id: "r1", created_at: "early" })],
      [delegation("t1", "failed", { created_at: "late" })],
    );
    assert.equal(merged[0]!.created_at, "early");
    assert.equal(merged[0]!.run_id, "r1");
  });
  test("empty or null update keeps the ledger", () => {
    const ledger = [delegation("t1", "completed")];
    assert.deepEqual(mergeDelegations(ledger, []), ledger);
    assert.deepEqual(mergeDelegations(ledger, null), ledger);
  });
  test("caps at 50 entries, keeping the newest", () => {
    const many = Array.from({ length: 60 }, (_, index) => delegation(`t${index}`, "completed"));
    const merged = mergeDelegations([], many);
    assert.equal(merged.length, 50);
    assert.equal(merged[0]!.id, "t10");
    assert.equal(merged.at(-1)!.id, "t59");
  });
  test("is idempotent", () => {
    const x = [delegation("t1", "completed"), delegation("t2", "in_progress")];
    assert.deepEqual(mergeDelegations(x, x), x);
  });
});

describe("mergeSkillContext", () => {
  test("dedupes by path and moves a re-read skill to the end", () => {
    const merged = mergeSkillContext(
      [skill("/mnt/skills/a/SKILL.md"), skill("/mnt/skills/b/SKILL.md")],
      [skill("/mnt/skills/a/SKILL.md", 5)],
    );
    assert.deepEqual(
      merged.map((entry) => [entry.path, entry.loaded_at]),
      [
        ["/mnt/skills/b/SKILL.md", 1],
        ["/mnt/skills/a/SKILL.md", 5],
      ],
    );
  });
  test("normalizes descriptions and drops legacy keys such as a stored body", () => {
    const legacy = {
      ...skill("/mnt/skills/a/SKILL.md", 1, `  lots\n of   space ${"x".repeat(600)}`),
      body: "# secret body",
    } as SkillEntry;
    const [entry] = mergeSkillContext([legacy], []);
    assert.equal(entry!.description.startsWith("lots of space x"), true);
    assert.equal(entry!.description.length, 500);
    assert.equal("body" in entry!, false);
  });
  test("caps at 8 entries, keeping the most recently read", () => {
    const many = Array.from({ length: 10 }, (_, index) => skill(`/mnt/skills/s${index}/SKILL.md`, index));
    const merged = mergeSkillContext([], many);
    assert.equal(merged.length, 8);
    assert.equal(merged[0]!.path, "/mnt/skills/s2/SKILL.md");
  });
  test("is idempotent", () => {
    const x = [skill("/mnt/skills/a/SKILL.md"), skill("/mnt/skills/b/SKILL.md", 2)];
    assert.deepEqual(mergeSkillContext(x, x), x);
  });
});

describe("mergeGoal", () => {
  const goal = { objective: "Ship the beta", set_at: "2026-01-01T00:00:00.000Z" };
  test("undefined keeps, null clears, a goal replaces", () => {
    assert.deepEqual(mergeGoal(goal, undefined), goal);
    assert.equal(mergeGoal(goal, null), null);
    assert.equal(mergeGoal(undefined, undefined), null);
    const next = { objective: "Ship 1.0", set_at: "2026-02-01T00:00:00.000Z" };
    assert.deepEqual(mergeGoal(goal, next), next);
  });
  test("merge(x, x) == x", () => {
    assert.deepEqual(mergeGoal(goal, goal), goal);
    assert.equal(mergeGoal(null, null), null);
  });
});

describe("mergeTaskNotes", () => {
  const note = (id: string, text = `note ${id}`) => ({ id, text, created_at: "2026-01-01T00:00:00.000Z" });
  test("appends in order; undefined, null and [] keep", () => {
    assert.deepEqual(mergeTaskNotes([note("a")], [note("b")]), [note("a"), note("b")]);
    for (const next of [undefined, null, []]) assert.deepEqual(mergeTaskNotes([note("a")], next), [note("a")]);
  });
  test("a known id keeps its first version, so merge(x, x) == x", () => {
    assert.deepEqual(mergeTaskNotes([note("a")], [note("a", "changed")]), [note("a")]);
    const notes = [note("a"), note("b")];
    assert.deepEqual(mergeTaskNotes(notes, notes), notes);
  });
  test("keeps the newest 20", () => {
    const many = Array.from({ length: 25 }, (_, i) => note(`n${i}`));
    const merged = mergeTaskNotes([], many);
    assert.equal(merged.length, 20);
    assert.equal(merged[0]!.id, "n5");
  });
});

test("mergeAcceptanceGaps: keyed by criterion, met removes, null clears, idempotent", () => {
  const gap = (criterion: string, status: "met" | "unmet" | "unverified", task_id = "t1") => ({
    criterion,
    status,
    task_id,
    created_at: "2026-01-01T00:00:00Z",
  });
  const open = mergeAcceptanceGaps([], [gap("Tests pass", "unmet"), gap("Docs", "unverified")]);
  assert.deepEqual(
    open.map((g) => [g.criterion, g.status]),
    [
      ["Tests pass", "unmet"],
      ["Docs", "unverified"],
    ],
  );
  assert.deepEqual(mergeAcceptanceGaps(open, open), open, "re-emitting the current list changes nothing");
  assert.deepEqual(
    mergeAcceptanceGaps(open, [gap("tests   PASS", "met", "t2")]).map((g) => g.criterion),
    ["Docs"],
    "a later task meeting the same criterion (case and spacing aside) closes it",
  );
  assert.deepEqual(mergeAcceptanceGaps(open, null), []);
  assert.deepEqual(mergeAcceptanceGaps(open, undefined), open);
  assert.deepEqual(mergeAcceptanceGaps([], [gap("x", "met")]), [], "met is never stored");
});

test("mergeToolReceipts: keyed by id, first version kept, idempotent", () => {
  const receipt = (id: string, bytes: number) => ({
    id,
    tool: "bash",
    tool_call_id: `c-${id}`,
    args_sha256: "a".repeat(16),
    result_sha256: "b".repeat(16),
    status: "ok" as const,
    result_bytes: bytes,
  });
  const list = mergeToolReceipts([receipt("r1", 1)], [receipt("r2", 2), receipt("r1", 99)]);
  assert.deepEqual(
    list.map((r) => [r.id, r.result_bytes]),
    [
      ["r1", 1],
      ["r2", 2],
    ],
  );
  assert.deepEqual(mergeToolReceipts(list, list), list);
});
