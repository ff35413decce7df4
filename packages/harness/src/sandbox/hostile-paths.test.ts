/**
 * The hostile-path suite: every case is tried against every file tool and, embedded in commands,
 * against `bash`, under both providers. An escape is any canary from outside the thread showing up in
 * a result, or any file outside the thread's roots (or in the read-only skills) changing. The suite
 * prints its counts and must report 0 escapes.
 *
 * A few cases build their paths at run time (`$(printf ...)`); no text check can see those, so they run
 * only under bubblewrap, where the mount namespace is the boundary. On the local provider host bash is
 * not a security boundary (docs/sandbox.md), which is why it is off by default.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { bwrapUnavailableReason, createTestSandbox, type TestSandbox } from "../testing/sandbox.js";
import { bashAuditPath } from "./bash-audit.js";

type Provider = "local" | "bwrap";
type Expectation = "error" | "contained";

interface PathCase {
  name: string;
  path: string;
  /**
   * Target of the write attempts when `path` names a real system file: a file that does not exist,
   * so a policy bug shows up as a new file (removed again) instead of damaging the machine.
   */
  writePath?: string;
  /** "write": only the writing tools and commands (e.g. /mnt/skills, which may be read). */
  only?: "write";
  /** Per provider: an error text is required, or only "nothing escaped". Default "error". */
  expect?: Expectation | Partial<Record<Provider, Expectation>>;
}

interface CommandCase {
  name: string;
  command: string;
  providers?: Provider[];
  expect?: Expectation | Partial<Record<Provider, Expectation>>;
}

const BWRAP_SKIP = bwrapUnavailableReason();
const HOST_PASSWD_ROOT = fs.readFileSync("/etc/passwd", "utf8").split("\n")[0]!;
/** A name in /etc that must never come to exist: write attempts aimed at system files use it. */
const DECOY = `deerflow-hostile-${randomBytes(6).toString("hex")}`;
/** Host files watched (and put back) around every call, in case a regression writes through. */
const GUARDED = ["/etc/passwd", "/etc/shadow", "/etc/hosts", "/etc/group"].filter((file) => fs.existsSync(file));

/** `printf` argument that builds `text` with no literal slash or dot in the command. */
function hidden(text: string): string {
  return `"$(printf '${[...text].map((c) => (c === "/" || c === "." ? `\\x${c.charCodeAt(0).toString(16)}` : c)).join("")}')"`;
}

function pathCases(home: string): PathCase[] {
  const outside = `${home}/outside`;
  const ws = "/mnt/user-data/workspace";
  return [
    { name: "relative traversal", path: "../../../../outside/secret.txt" },
    { name: "traversal after a virtual root", path: `${ws}/../../../../outside/secret.txt` },
    { name: "traversal that would stay inside", path: "/mnt/user-data/../user-data/workspace/x" },
    {
      name: "traversal out of uploads",
      path: "/mnt/user-data/uploads/../../../etc",
      writePath: `/mnt/user-data/uploads/../../../etc/${DECOY}`,
    },
    {
      name: "dot segments then traversal",
      path: "/mnt/./user-data/../../etc/passwd",
      writePath: `/mnt/./user-data/../../etc/${DECOY}`,
    },
    { name: "traversal out of skills", path: "/mnt/skills/../user-data/workspace/x" },
    { name: "absolute /etc/passwd", path: "/etc/passwd", writePath: `/etc/${DECOY}` },
    { name: "absolute /etc/shadow", path: "/etc/shadow", writePath: `/etc/${DECOY}` },
    { name: "double leading slash", path: "//etc/passwd", writePath: `//etc/${DECOY}` },
    { name: "host path outside the thread", path: `${outside}/secret.txt` },
    { name: "host path of another thread", path: `${home}/threads/other-thread/user-data/workspace/secret.txt` },
    { name: "host path of this very thread", path: `${home}/threads/test-thread/user-data/workspace/x.txt` },
    { name: "prefix trick user-data-x", path: "/mnt/user-data-x/secret.txt" },
    { name: "prefix trick user-dataX", path: "/mnt/user-dataX/workspace/a" },
    { name: "prefix trick skills-evil", path: "/mnt/skills-evil/x" },
    { name: "prefix trick workspace-evil", path: "/mnt/user-data/workspace-evil/x" },
    { name: "user-data root file", path: "/mnt/user-data/secret" },
    { name: "upper-case virtual root", path: "/MNT/USER-DATA/workspace/x" },
    { name: "the /mnt directory", path: "/mnt" },
    { name: "the root directory", path: "/" },
    { name: "the root directory as /.", path: "/.", writePath: `/./${DECOY}` },
    // Under bubblewrap /proc is the sandbox's own (its environment is the cleared one): reading it is fine.
    { name: "process environment", path: "/proc/self/environ", expect: { local: "error", bwrap: "contained" } },
    { name: "symlink to an outside dir", path: `${ws}/link_out/secret.txt` },
    { name: "symlinked outside dir itself", path: `${ws}/link_out` },
    { name: "symlink to an outside file", path: `${ws}/link_secret` },
    { name: "relative symlink leading out", path: `${ws}/link_rel/secret.txt` },
    { name: "symlink to /etc", path: `${ws}/link_etc/passwd`, writePath: `${ws}/link_etc/${DECOY}` },
    { name: "symlink to /", path: `${ws}/link_root/etc/passwd`, writePath: `${ws}/link_root/etc/${DECOY}` },
    { name: "dangling symlink (write would create outside)", path: `${ws}/link_dangling` },
    { name: "chain of symlinks", path: `${ws}/link_chain/secret.txt` },
    { name: "symlink to another thread", path: `${ws}/link_other_thread/workspace/secret.txt` },
    { name: "symlink loop", path: `${ws}/link_loop/x` },
    { name: "symlink inside outputs leading out", path: "/mnt/user-data/outputs/link_out_outputs/secret.txt" },
    { name: "symlink the agent made with bash (outside dir)", path: `${ws}/bash_link_out/secret.txt` },
    {
      name: "symlink the agent made with bash (/etc)",
      path: `${ws}/bash_link_etc/passwd`,
      writePath: `${ws}/bash_link_etc/${DECOY}`,
    },
    { name: "write into skills", path: "/mnt/skills/public/demo/SKILL.md", only: "write" },
    { name: "new file in skills", path: "/mnt/skills/public/demo/new.txt", only: "write" },
    {
      name: "write into skills through a workspace link",
      path: `${ws}/link_skills/public/demo/SKILL.md`,
      only: "write",
    },
    { name: "NUL byte then absolute path", path: `${ws}/a\u0000/etc/passwd`, writePath: `${ws}/a\u0000/etc/${DECOY}` },
    { name: "lone NUL byte", path: `${ws}/\u0000` },
    { name: "newline in the path", path: `${ws}/a\n/etc/passwd`, writePath: `${ws}/a\n/etc/${DECOY}` },
    { name: "empty path", path: "" },
    { name: "very long path", path: `${ws}/${"a".repeat(5000)}` },
    { name: "overlong path component", path: `${ws}/${"b".repeat(300)}` },
    { name: "path too deep for the host", path: `${ws}/${"d/".repeat(2030)}x`, expect: "contained" },
    { name: "lookalike hyphen in user-data", path: "/mnt/user\u2010data/workspace/x" },
    {
      name: "fullwidth dots and solidus",
      path: `${ws}/\uff0e\uff0e\uff0f\uff0e\uff0e\uff0foutside/secret.txt`,
      expect: "contained",
    },
    { name: "right-to-left override in a name", path: `${ws}/\u202etxt.exe`, expect: "contained" },
    { name: "URL-encoded traversal", path: `${ws}/..%2f..%2foutside/secret.txt`, expect: "contained" },
    { name: "backslash traversal", path: `${ws}/..\\..\\outside\\secret.txt`, expect: "contained" },
    { name: "file URL", path: "file:///etc/passwd", writePath: `file:///etc/${DECOY}`, expect: "contained" },
  ];
}

function commandCases(home: string): CommandCase[] {
  const outside = `${home}/outside`;
  return [
    { name: "cd up and read", command: "cd ..; cat ../../outside/secret.txt" },
    { name: "cd to / and read relative", command: "cd / && cat etc/passwd" },
    { name: "another user's home", command: "cat ~root/.bashrc" },
    { name: "link an outside dir with a literal path", command: `ln -s ${outside} wslink && cat wslink/secret.txt` },
    { name: "link /etc/passwd", command: "ln -s /etc/passwd p && cat p" },
    { name: "link / and read through it", command: "ln -s / root && cat root/etc/passwd" },
    { name: "link / spelled /. and read through it", command: "ln -s /. dot && cat dot/etc/passwd" },
    { name: "link / inside bash -c", command: "bash -c 'ln -s / r && cat r/etc/passwd'" },
    { name: "glob over the root", command: "cat /?tc/passwd" },
    { name: "variable under the root", command: "d=etc; cat /$d/passwd" },
    {
      name: "copy /etc/passwd into outputs",
      command: "cp /etc/passwd /mnt/user-data/outputs/p && cat /mnt/user-data/outputs/p",
    },
    { name: "redirect into skills", command: "echo pwned > /mnt/skills/public/demo/SKILL.md" },
    { name: "remove skills", command: "rm -rf /mnt/skills/public" },
    { name: "python reads /etc/passwd", command: `python3 -c "print(open('/etc/passwd').read())"` },
    { name: "input redirection from /etc/passwd", command: "cat </etc/passwd" },
    {
      name: "read through a bash-made link (relative)",
      command: "cat bash_link_out/secret.txt",
      expect: { local: "error", bwrap: "contained" },
    },
    { name: "list the repository by its host path", command: `ls ${process.cwd()}` },
    { name: "environment dump", command: "env; cat /proc/self/environ", expect: "contained" },
    {
      name: "run-time built /etc/passwd",
      command: `cat ${hidden("/etc/passwd")}`,
      providers: ["bwrap"],
      expect: "contained",
    },
    {
      name: "run-time built outside read",
      command: `cat ${hidden(`${outside}/secret.txt`)}`,
      providers: ["bwrap"],
      expect: "contained",
    },
    {
      name: "run-time built outside write",
      command: `echo pwned > ${hidden(`${outside}/pwned.txt`)}`,
      providers: ["bwrap"],
      expect: "contained",
    },
    {
      name: "run-time built skills write",
      command: `echo pwned > ${hidden("/mnt/skills/public/demo/SKILL.md")}`,
      providers: ["bwrap"],
      expect: "contained",
    },
    {
      name: "run-time built other-thread read",
      command: `cat ${hidden(`${home}/threads/other-thread/user-data/workspace/secret.txt`)}`,
      providers: ["bwrap"],
      expect: "contained",
    },
    {
      name: "run-time built cd to /",
      command: `cd ${hidden("/")} && ls && cat etc/passwd`,
      providers: ["bwrap"],
      expect: "contained",
    },
  ];
}

function fileToolCalls(target: string, writeTarget: string, only?: "write"): Array<[string, Record<string, unknown>]> {
  const writes: Array<[string, Record<string, unknown>]> = [
    ["write_file", { description: "t", path: writeTarget, content: "pwned" }],
    ["write_file", { description: "t", path: writeTarget, content: "pwned", append: true }],
    ["str_replace", { description: "t", path: writeTarget, old_str: "secret", new_str: "pwned", replace_all: true }],
  ];
  if (only === "write") return writes;
  return [
    ["ls", { description: "t", path: target }],
    ["read_file", { description: "t", path: target }],
    ...writes,
    ["glob", { description: "t", pattern: "**", path: target }],
    ["grep", { description: "t", pattern: ".", path: target }],
    ["present_files", { filepaths: [target] }],
    ["view_image", { image_path: target }],
  ];
}

function bashCommands(target: string, writeTarget: string, only?: "write"): string[] {
  if (target.includes("'") || writeTarget.includes("'")) return [];
  const writes = [`echo pwned > '${writeTarget}'`, `cp /mnt/user-data/workspace/seed.txt '${writeTarget}'`];
  if (only === "write") return writes;
  return [`cat '${target}'`, `ls -la '${target}'`, ...writes];
}

/** The value of the bash audit log in a snapshot while it holds only the harness's own entries for this thread. */
const AUDIT_OK = "audit log: harness entries only";

/** Whether every line of the audit log is an entry the bash tool wrote for this thread (nothing a command added). */
function onlyAuditEntries(file: string): boolean {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .every((line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        return entry.thread_id === "test-thread" && typeof entry.command === "string";
      } catch {
        return false;
      }
    });
}

/** Everything under `home` except this thread's user-data, by content hash; the bash audit log by {@link onlyAuditEntries}. */
function snapshot(home: string): Map<string, string> {
  const result = new Map<string, string>();
  const skip = new Set([path.join(home, "threads", "test-thread", "user-data")]);
  const auditLog = bashAuditPath(home);
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (skip.has(full)) continue;
      if (full === auditLog && entry.isFile() && onlyAuditEntries(full)) result.set(full, AUDIT_OK);
      else if (entry.isDirectory()) walk(full);
      else if (entry.isSymbolicLink()) result.set(full, `link:${fs.readlinkSync(full)}`);
      else result.set(full, createHash("sha256").update(fs.readFileSync(full)).digest("hex"));
    }
  };
  walk(home);
  return result;
}

function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [file, hash] of after) if (before.get(file) !== hash && hash !== AUDIT_OK) changed.push(file);
  for (const file of before.keys()) if (!after.has(file)) changed.push(`${file} (deleted)`);
  return changed;
}

function isErrorText(text: string): boolean {
  return text.startsWith("Error:") || /\[exit code: (?!0\])/.test(text);
}

function expectationFor(expect: PathCase["expect"], provider: Provider): Expectation {
  if (expect === undefined) return "error";
  return typeof expect === "string" ? expect : (expect[provider] ?? "error");
}

async function prepare(kit: TestSandbox): Promise<{ canaries: string[] }> {
  const { home } = kit;
  const ws = kit.sandbox.paths.workspace_path;
  const canaryOutside = `outside-canary-${randomBytes(8).toString("hex")}`;
  const canaryOther = `other-thread-canary-${randomBytes(8).toString("hex")}`;
  fs.mkdirSync(path.join(home, "outside"));
  fs.writeFileSync(path.join(home, "outside", "secret.txt"), `secret ${canaryOutside}\n`);
  const other = path.join(home, "threads", "other-thread", "user-data", "workspace");
  fs.mkdirSync(other, { recursive: true });
  fs.writeFileSync(path.join(other, "secret.txt"), `secret ${canaryOther}\n`);
  fs.writeFileSync(path.join(ws, "seed.txt"), "seed\n");
  const links: Array<[string, string]> = [
    [path.join(home, "outside"), "link_out"],
    [path.join(home, "outside", "secret.txt"), "link_secret"],
    ["../../../../outside", "link_rel"],
    ["/etc", "link_etc"],
    ["/", "link_root"],
    [path.join(home, "outside", "created-through-dangling.txt"), "link_dangling"],
    ["link_out", "link_chain"],
    [path.join(home, "threads", "other-thread", "user-data"), "link_other_thread"],
    ["link_loop", "link_loop"],
    [kit.skillsDir, "link_skills"],
  ];
  for (const [target, name] of links) fs.symlinkSync(target, path.join(ws, name));
  fs.symlinkSync(path.join(home, "outside"), path.join(kit.sandbox.paths.outputs_path, "link_out_outputs"));
  // Links the agent makes itself, with paths built at run time so no text check sees them.
  for (const [target, name] of [
    [path.join(home, "outside"), "bash_link_out"],
    ["/etc", "bash_link_etc"],
  ] as const) {
    const made = await kit.text("bash", {
      description: "make a link",
      command: `ln -s ${hidden(target)} ${name} && echo made`,
    });
    assert.equal(made.trim(), "made", `setup: ${made}`);
  }
  return { canaries: [canaryOutside, canaryOther, HOST_PASSWD_ROOT, "canary-env-5678"] };
}

for (const provider of ["local", "bwrap"] as const) {
  const skip = provider === "bwrap" && BWRAP_SKIP ? `bubblewrap not usable: ${BWRAP_SKIP}` : false;

  test(`hostile-path suite under ${provider}: nothing outside the thread is read or written`, { skip }, async (t) => {
    const kit = createTestSandbox({
      use: provider,
      hostEnv: { ...process.env, DEERFLOW_TEST_API_KEY: "canary-env-5678" },
      skills: { "public/demo/SKILL.md": "---\nname: demo\ndescription: demo skill\n---\nsecret body\n" },
    });
    t.after(() => kit.cleanup());
    assert.equal(kit.provider.kind, provider);
    const { canaries } = await prepare(kit);
    const escapes: string[] = [];
    const missingErrors: string[] = [];
    let calls = 0;
    let refused = 0;

    const guarded = new Map(GUARDED.map((file) => [file, fs.readFileSync(file)]));
    const run = async (label: string, expectation: Expectation, invoke: () => Promise<string>) => {
      const before = snapshot(kit.home);
      const text = await invoke();
      calls += 1;
      for (const [file, content] of guarded) {
        if (!fs.readFileSync(file).equals(content)) {
          fs.writeFileSync(file, content); // put the machine back before reporting
          escapes.push(`${label}: modified ${file}`);
        }
      }
      if (fs.existsSync(`/etc/${DECOY}`)) {
        fs.rmSync(`/etc/${DECOY}`, { force: true });
        escapes.push(`${label}: created /etc/${DECOY}`);
      }
      const leaked = canaries.filter((canary) => text.includes(canary));
      if (leaked.length > 0) escapes.push(`${label}: result shows ${leaked.join(", ")}`);
      const changed = changes(before, snapshot(kit.home));
      if (changed.length > 0) escapes.push(`${label}: changed ${changed.join(", ")}`);
      if (isErrorText(text)) refused += 1;
      else if (expectation === "error") missingErrors.push(`${label}: ${JSON.stringify(text.slice(0, 160))}`);
    };

    const cases = pathCases(kit.home);
    const commands = commandCases(kit.home).filter((item) => !item.providers || item.providers.includes(provider));
    for (const item of cases) {
      const expectation = expectationFor(item.expect, provider);
      const writeTarget = item.writePath ?? item.path;
      for (const [tool, args] of fileToolCalls(item.path, writeTarget, item.only)) {
        await run(`[${item.name}] ${tool}`, expectation, () => kit.text(tool, args));
      }
      for (const command of bashCommands(item.path, writeTarget, item.only)) {
        await run(`[${item.name}] bash ${JSON.stringify(command.slice(0, 60))}`, expectation, () =>
          kit.text("bash", { description: "t", command }),
        );
      }
    }
    for (const item of commands) {
      await run(`[${item.name}] bash`, expectationFor(item.expect, provider), () =>
        kit.text("bash", { description: "t", command: item.command }),
      );
    }

    const total = cases.length + commands.length;
    console.log(
      `hostile-path suite [${provider}]: ${total} cases (${cases.length} paths x every file tool and bash, ${commands.length} commands), ` +
        `${calls} tool calls, ${refused} refused with an error, escapes: ${escapes.length}`,
    );
    assert.ok(total >= 40, `at least 40 cases (have ${total})`);
    assert.deepEqual(escapes, [], "no escapes");
    assert.deepEqual(missingErrors, [], "every hostile case gets an error message");
  });
}
