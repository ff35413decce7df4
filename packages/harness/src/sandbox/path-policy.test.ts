import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { HarnessError } from "../errors.js";
import { PathPolicy, normalizeVirtualPath, resolveVirtualPath } from "./path-policy.js";
import { ensureThreadDirs, threadPaths, validateThreadId } from "./virtual-paths.js";
import { createTempHome } from "../testing/temp-home.js";

function setup() {
  const temp = createTempHome({ prefix: "policy-test-" });
  const home = temp.path;
  const paths = ensureThreadDirs(home, "t1");
  const skills = path.join(home, "skills");
  fs.mkdirSync(path.join(skills, "public", "demo"), { recursive: true });
  fs.writeFileSync(path.join(skills, "public", "demo", "SKILL.md"), "---\nname: demo\n---\n");
  fs.mkdirSync(path.join(home, "outside"));
  fs.writeFileSync(path.join(home, "outside", "secret.txt"), "secret");
  const policy = new PathPolicy({ userDataDir: path.dirname(paths.workspace_path), skillsDir: skills });
  return { home, paths, skills, policy, cleanup: temp.cleanup };
}

test("virtual paths map to the thread's host directories", (t) => {
  const s = setup();
  t.after(s.cleanup);
  const decision = s.policy.resolve("/mnt/user-data/outputs/report.md", "write");
  assert.ok(decision.ok);
  assert.equal(decision.hostPath, path.join(s.paths.outputs_path, "report.md"));
  assert.equal(decision.virtualPath, "/mnt/user-data/outputs/report.md");
  const skill = s.policy.resolve("/mnt/skills/public/demo/SKILL.md", "read");
  assert.ok(skill.ok && skill.area === "skills" && skill.realPath === path.join(s.skills, "public/demo/SKILL.md"));
});

test("relative paths are taken relative to the workspace; '.' and '//' are normalized", (t) => {
  const s = setup();
  t.after(s.cleanup);
  const decision = s.policy.resolve("notes/./a.md", "write");
  assert.ok(decision.ok);
  assert.equal(decision.virtualPath, "/mnt/user-data/workspace/notes/a.md");
  assert.equal(
    normalizeVirtualPath("/mnt//user-data/outputs/").ok &&
      (normalizeVirtualPath("/mnt//user-data/outputs/") as { virtualPath: string }).virtualPath,
    "/mnt/user-data/outputs",
  );
});

test("'..' segments are refused even when they would stay inside", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const input of ["../x", "/mnt/user-data/workspace/../outputs/a", "/mnt/user-data/workspace/a/.."]) {
    const decision = s.policy.resolve(input, "read");
    assert.ok(!decision.ok);
    assert.match(decision.error, /^Access denied: path traversal/);
  }
});

test("prefix checks are separator-aware and everything outside the roots is refused", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const input of [
    "/mnt/user-data-x/a",
    "/mnt/skills-evil/a",
    "/etc/passwd",
    "/",
    "/mnt",
    s.paths.workspace_path,
  ]) {
    const decision = s.policy.resolve(input, "read");
    assert.ok(!decision.ok, input);
    assert.match(decision.error, /outside the sandbox/);
  }
  const rootFile = s.policy.resolve("/mnt/user-data/loose.txt", "write");
  assert.ok(!rootFile.ok && /not inside \/mnt\/user-data\/workspace/.test(rootFile.error));
  assert.ok(s.policy.resolve("/mnt/user-data", "read").ok, "the user-data root can be listed");
});

test("/mnt/skills is read-only", (t) => {
  const s = setup();
  t.after(s.cleanup);
  const decision = s.policy.resolve("/mnt/skills/public/demo/SKILL.md", "write");
  assert.ok(!decision.ok);
  assert.match(decision.error, /\/mnt\/skills is read-only/);
  const none = new PathPolicy({ userDataDir: path.dirname(s.paths.workspace_path) }).resolve("/mnt/skills/x", "read");
  assert.ok(!none.ok && /no skills directory is configured/.test(none.error));
});

test("NUL bytes, control characters, empty and overlong paths are refused", (t) => {
  const s = setup();
  t.after(s.cleanup);
  const cases: Array<[string, RegExp]> = [
    ["/mnt/user-data/workspace/a\u0000b", /NUL byte/],
    ["/mnt/user-data/workspace/a\nb", /control characters/],
    ["", /No path given/],
    ["   ", /No path given/],
    [`/mnt/user-data/workspace/${"a".repeat(5000)}`, /too long/],
    [`/mnt/user-data/workspace/${"é".repeat(200)}`, /component is too long/],
  ];
  for (const [input, pattern] of cases) {
    const decision = s.policy.resolve(input, "write");
    assert.ok(!decision.ok, JSON.stringify(input.slice(0, 40)));
    assert.match(decision.error, pattern);
    assert.ok(!decision.error.includes("\u0000"), "the message never echoes a NUL byte");
  }
  assert.ok(!s.policy.resolve(42, "read").ok);
});

test("symlinks that lead out are refused; links that stay inside are followed", (t) => {
  const s = setup();
  t.after(s.cleanup);
  const ws = s.paths.workspace_path;
  fs.symlinkSync(path.join(s.home, "outside"), path.join(ws, "out"));
  fs.symlinkSync("../../../../outside/secret.txt", path.join(ws, "rel"));
  fs.symlinkSync(path.join(s.home, "outside", "new.txt"), path.join(ws, "dangling"));
  fs.symlinkSync("loop", path.join(ws, "loop"));
  fs.symlinkSync(s.paths.outputs_path, path.join(ws, "to-outputs"));
  fs.symlinkSync(s.skills, path.join(ws, "to-skills"));
  for (const input of [
    "/mnt/user-data/workspace/out/secret.txt",
    "/mnt/user-data/workspace/out/new.txt",
    "/mnt/user-data/workspace/rel",
  ]) {
    const decision = s.policy.resolve(input, "read");
    assert.ok(!decision.ok, input);
    assert.match(decision.error, /resolves through a symlink to a location outside/);
  }
  const dangling = s.policy.resolve("/mnt/user-data/workspace/dangling", "write");
  assert.ok(!dangling.ok && /symlink whose target does not exist/.test(dangling.error));
  const loop = s.policy.resolve("/mnt/user-data/workspace/loop/x", "read");
  assert.ok(!loop.ok && /symlink loop/.test(loop.error));
  const inside = s.policy.resolve("/mnt/user-data/workspace/to-outputs/a.md", "write");
  assert.ok(inside.ok && inside.realPath === path.join(s.paths.outputs_path, "a.md"));
  assert.ok(
    s.policy.resolve("/mnt/user-data/workspace/to-skills/public/demo/SKILL.md", "read").ok,
    "reading skills through a link is fine",
  );
  const writeSkills = s.policy.resolve("/mnt/user-data/workspace/to-skills/public/demo/SKILL.md", "write");
  assert.ok(!writeSkills.ok, "writing into skills through a link is not");
});

test("a workspace directory replaced by a link to / is refused", (t) => {
  const s = setup();
  t.after(s.cleanup);
  fs.rmSync(s.paths.workspace_path, { recursive: true });
  fs.symlinkSync("/", s.paths.workspace_path);
  const decision = s.policy.resolve("/mnt/user-data/workspace/etc/passwd", "read");
  assert.ok(!decision.ok);
});

test("toVirtual and mapping turn host paths back into virtual ones", (t) => {
  const s = setup();
  t.after(s.cleanup);
  assert.equal(s.policy.toVirtual(path.join(s.paths.outputs_path, "a.md")), "/mnt/user-data/outputs/a.md");
  assert.equal(s.policy.toVirtual(path.join(s.skills, "x")), "/mnt/skills/x");
  assert.equal(s.policy.toVirtual(`${path.dirname(s.paths.outputs_path)}-x/a`), undefined, "separator-aware");
});

test("resolveVirtualPath gives the CLI a checked host path, or throws a SandboxError", (t) => {
  const s = setup();
  t.after(s.cleanup);
  assert.equal(
    resolveVirtualPath(s.home, "t1", "/mnt/user-data/outputs/a.md"),
    path.join(s.paths.outputs_path, "a.md"),
  );
  assert.throws(
    () => resolveVirtualPath(s.home, "t1", "/etc/passwd"),
    (error: unknown) => error instanceof HarnessError && error.code === "sandbox_denied",
  );
  assert.throws(() => resolveVirtualPath(s.home, "../t1", "/mnt/user-data/outputs/a.md"), /Thread id/);
});

test("thread ids that could name a path are rejected", () => {
  for (const bad of ["", "..", "a/b", "/abs", "a\u0000b", ".hidden", "a..b", "x".repeat(129), 7]) {
    assert.throws(
      () => validateThreadId(bad),
      (error: unknown) => error instanceof HarnessError && error.code === "thread_invalid",
      String(bad),
    );
  }
  assert.equal(validateThreadId("thread-42_a.b"), "thread-42_a.b");
  assert.equal(threadPaths("/h", "t").uploads_path, "/h/threads/t/user-data/uploads");
});
