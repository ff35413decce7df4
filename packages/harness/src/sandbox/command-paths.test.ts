import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {
  SAFE_DEVICE_PATHS,
  SYSTEM_READ_ONLY_PREFIXES,
  checkCommandPaths,
  rewriteVirtualPaths,
} from "./command-paths.js";
import { PathPolicy } from "./path-policy.js";
import { ensureThreadDirs } from "./virtual-paths.js";
import { createTempHome } from "../testing/temp-home.js";

function setup() {
  const temp = createTempHome({ prefix: "cmd-test-" });
  const home = temp.path;
  const paths = ensureThreadDirs(home, "t1");
  const skills = path.join(home, "skills");
  fs.mkdirSync(skills);
  fs.mkdirSync(path.join(home, "outside"));
  const policy = new PathPolicy({ userDataDir: path.dirname(paths.workspace_path), skillsDir: skills });
  const options = {
    readOnlyPrefixes: SYSTEM_READ_ONLY_PREFIXES,
    writablePrefixes: SAFE_DEVICE_PATHS,
    hostWorkspace: paths.workspace_path,
  };
  return { home, paths, skills, policy, options, cleanup: temp.cleanup };
}

test("ordinary commands over the virtual roots and system tools pass", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "ls -la /mnt/user-data/workspace",
    "python3 /mnt/skills/public/x/run.py > /mnt/user-data/outputs/out.txt 2>/dev/null",
    "cp /mnt/skills/public/x/template.md /mnt/user-data/workspace/",
    "/usr/bin/env python3 -c 'print(10/3)'",
    "curl -s https://example.com/a/b?c=/etc/passwd | head",
    "cat notes.txt | wc -l && echo done",
    "echo $HOME; cd ~ && ls",
  ]) {
    assert.equal(checkCommandPaths(command, s.policy, s.options), null, command);
  }
});

test("paths outside the roots, '..', '~user' and NUL bytes are refused", (t) => {
  const s = setup();
  t.after(s.cleanup);
  const cases: Array<[string, RegExp]> = [
    ["cat /etc/passwd", /\/etc\/passwd is outside the sandbox/],
    ["cat</etc/passwd", /outside the sandbox/],
    ["grep root --file=/etc/passwd x", /outside the sandbox/],
    ["PATH=/usr/bin:/etc ls", /\/etc is outside/],
    ["cd / && cat etc/passwd", /changing into '\/'/],
    ["rm -rf /", /modify the root directory/],
    ["cat /etc/{passwd,shadow}", /outside the sandbox/],
    ["cat ../../secret", /path traversal/],
    ["cd /mnt/user-data/workspace/.. && ls", /path traversal/],
    ["cat ~root/.bashrc", /~user/],
    ["cat /mnt/user-data-x/a", /outside the sandbox/],
    [`cat ${s.home}/outside/secret.txt`, /outside the sandbox/],
    ["echo a\u0000b", /NUL byte/],
  ];
  for (const [command, pattern] of cases) {
    const error = checkCommandPaths(command, s.policy, s.options);
    assert.ok(error, command);
    assert.match(error!, pattern, command);
  }
});

test("writes to read-only roots are refused, reads are not", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "echo x > /mnt/skills/a.txt",
    "echo x >> /mnt/skills/a.txt",
    "echo x > '/mnt/skills/a.txt'",
    'echo x >"/mnt/skills/a.txt"',
    "touch /mnt/skills/a",
    "rm -rf /mnt/skills/public",
    "cp /mnt/user-data/workspace/a /mnt/skills/",
    "mv /mnt/skills/a /mnt/user-data/workspace/",
    "sed -i s/a/b/ /mnt/skills/a.md",
    "echo x | tee /usr/bin/evil",
    "find /mnt/skills -delete",
  ]) {
    assert.match(checkCommandPaths(command, s.policy, s.options) ?? "", /read-only/, command);
  }
  assert.equal(checkCommandPaths("cat /mnt/skills/a.md > /mnt/user-data/outputs/a.md", s.policy, s.options), null);
});

test("relative names that go through a workspace symlink to the outside are refused (host only)", (t) => {
  const s = setup();
  t.after(s.cleanup);
  fs.symlinkSync(path.join(s.home, "outside"), path.join(s.paths.workspace_path, "out"));
  fs.mkdirSync(path.join(s.paths.workspace_path, "fine"));
  assert.match(checkCommandPaths("cat out/secret.txt", s.policy, s.options) ?? "", /symlink/);
  assert.match(checkCommandPaths("cd out && cat secret.txt", s.policy, s.options) ?? "", /symlink/);
  assert.equal(checkCommandPaths("ls fine", s.policy, s.options), null);
  const { hostWorkspace: _ignored, ...noHost } = s.options;
  assert.equal(
    checkCommandPaths("cat out/secret.txt", s.policy, noHost),
    null,
    "without hostWorkspace (bwrap) relative names are the namespace's business",
  );
});

test("virtual paths are rewritten to host paths only at path boundaries", (t) => {
  const s = setup();
  t.after(s.cleanup);
  const userData = path.dirname(s.paths.workspace_path);
  assert.equal(
    rewriteVirtualPaths("cat /mnt/user-data/outputs/a.md '/mnt/skills/x' /mnt/user-data-x/b /mnt/user-data", s.policy),
    `cat '${userData}'/outputs/a.md '${s.skills}/x' /mnt/user-data-x/b '${userData}'`,
  );
});

test("the command scan is linear: 400,000-character tokens are checked at once", { timeout: 20_000 }, (t) => {
  const s = setup();
  t.after(s.cleanup);
  const big = 400_000;
  const cases: Array<[string, RegExp | null]> = [
    [`echo ${"a".repeat(big)}`, null],
    [`echo ${"x".repeat(big)}://y`, null],
    [`echo${" /usr".repeat(big / 5)}`, null],
    [`echo${" 1>/dev/null".repeat(big / 12)}`, null],
    [`echo /${"a.".repeat(big / 2)}x`, /outside the sandbox/],
    [`echo ${"'".repeat(big)}x`, null],
    [`echo ${":/{".repeat(big / 3)}`, null],
    [`echo ${"a:".repeat(big / 2)}`, null],
    [`cat /mnt/user-data/workspace/${"b".repeat(big)}`, /too long/],
    [`echo ${"{".repeat(big)}`, null],
    [`echo ${"$((".repeat(big / 3)}`, null],
    [`echo "${"$(".repeat(big / 2)}`, null],
    [`cat <<${"E".repeat(big)}\n${"x\n".repeat(big / 2)}`, null],
  ];
  for (const [command, expected] of cases) {
    const result = checkCommandPaths(command, s.policy, s.options);
    if (expected) assert.match(result ?? "", expected);
    else assert.equal(result, null);
    rewriteVirtualPaths(command, s.policy);
  }
});

test("file: URLs are refused in any case; ordinary text with 'file:' or a bare '/' is not", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "curl file:///etc/passwd",
    "curl FILE:///etc/passwd",
    "curl -s 'File://localhost/etc/passwd'",
    "python3 -c 'import urllib.request as u; u.urlopen(\"file:/etc/hostname\")'",
  ]) {
    assert.match(checkCommandPaths(command, s.policy, s.options) ?? "", /file: URLs/, command);
  }
  for (const command of [
    "echo 'profile: x' && grep 'file: ' notes.txt",
    "echo '/devices/{id}'",
    `printf '%s\\n' "GET /devices/{id}"`,
    "echo 10 / 3",
  ]) {
    assert.equal(checkCommandPaths(command, s.policy, s.options), null, command);
  }
});

test("a word naming the root directory, in any spelling, is refused as a path", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "ls /",
    "ls -la '/'",
    "ls /.",
    "ls /./",
    "ls //",
    "find / -name passwd",
    "grep -r root /",
    "du -sh /",
    "tar czf /mnt/user-data/outputs/all.tgz /",
    "python3 walk.py /",
    "rsync -a / /mnt/user-data/workspace/copy",
    "cd /mnt/user-data/workspace && ls /",
    "export HOME=/",
    "HOME=/. bash",
  ]) {
    assert.match(
      checkCommandPaths(command, s.policy, s.options) ?? "",
      /Access denied: .*(root directory|outside the sandbox)/,
      command,
    );
  }
});

test("a lone '/' that is text (an operator, a delimiter, a quoted expression) passes", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "echo 10 / 3",
    "expr 4 / 2",
    "cut -d / -f 2 paths.txt",
    "cut -d '/' -f 2 paths.txt",
    "awk -F / '{print $1}' paths.txt",
    "awk '{print $1 / 2}' data.txt",
    "tr / _ < paths.txt",
    "sort -t / -k 2 paths.txt",
    `python3 -c "print(4 / 2)"`,
    "python3 -c 'x = 10 / 3; print(x)'",
    "bc <<< '4 / 2'",
    "echo $((8 / 2)) && (( half = 8 / 2 ))",
    `IFS=/ read -r first rest <<< "$line"`,
    `[[ $p == /* ]] && echo absolute`,
    "case $p in /*) echo absolute;; esac",
    "python3 <<'EOF'\nprint(4 / 2)\nimport os\nEOF\necho done",
    "sed 's/a/b/' notes.txt",
    "ls /usr/bin /mnt/user-data/workspace",
  ]) {
    assert.equal(checkCommandPaths(command, s.policy, s.options), null, command);
  }
});

test("globs and expansions over the root directory are refused unless the command only prints them", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "cat /*/passwd",
    "cat /?tc/passwd",
    "cat /[e]tc/passwd",
    "cat /{etc,x}/passwd",
    "d=etc; cat /$d/passwd",
    `cat "/$(printf etc)/passwd"`,
    "cat /`echo etc`/passwd",
    "sed -n p /.?tc/passwd",
    "for f in /*; do ls $f; done",
  ]) {
    assert.match(checkCommandPaths(command, s.policy, s.options) ?? "", /Access denied/, command);
  }
  assert.equal(checkCommandPaths("echo /*", s.policy, s.options), null);
});

test("a link may only point where the command could write: ln -s / root is refused", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "ln -s / root && cat root/etc/passwd",
    "ln -s /. root",
    "ln -s // root",
    "ln -sf '/' root",
    "ln -s /usr u && echo x > u/evil",
    "ln /usr/bin/python3 py",
    "link /usr/bin/env e",
    "cp -s /usr/bin/env e",
    "cp -rl /usr/lib/python3 lib",
    "ln -s /mnt/skills/public skills",
  ]) {
    assert.match(
      checkCommandPaths(command, s.policy, s.options) ?? "",
      /Access denied: (a link to|.*read-only)/,
      command,
    );
  }
  for (const command of [
    "ln -s /mnt/user-data/workspace/data.csv /mnt/user-data/outputs/data.csv",
    "ln -sf /dev/null log.txt",
    "cp /usr/share/dict/words words.txt",
  ]) {
    assert.equal(checkCommandPaths(command, s.policy, s.options), null, command);
  }
});

test("the script of bash -c, sh -c and eval is checked as a command", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "bash -c 'ln -s / r && cat r/etc/passwd'",
    `sh -c "ls /"`,
    "bash -lc 'cd / && cat etc/passwd'",
    `eval "ls /"`,
    `bash -c "bash -c 'ls /'"`,
  ]) {
    assert.match(checkCommandPaths(command, s.policy, s.options) ?? "", /Access denied/, command);
  }
  assert.equal(checkCommandPaths("bash -c 'ls /mnt/user-data/workspace | wc -l'", s.policy, s.options), null);
});

test("a /word with non-ASCII letters in its first name is text (DeerFlow issue 23)", (t) => {
  const s = setup();
  t.after(s.cleanup);
  for (const command of [
    "echo '健康检查 /端口 状态'",
    `python3 -c "print(f'/端口{port}')"`,
    `printf '%s\\n' "访问 /接口/用户 成功"`,
  ]) {
    assert.equal(checkCommandPaths(command, s.policy, s.options), null, command);
  }
  for (const command of ["cat /etc/用户.txt", "echo x > /端口", "mkdir -p /数据/x"]) {
    assert.match(checkCommandPaths(command, s.policy, s.options) ?? "", /Access denied/, command);
  }
});
