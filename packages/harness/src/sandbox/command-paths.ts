/**
 * The path policy applied to shell commands. A command is text, so this finds what the text names:
 * every absolute path token, `..` segments, `~user`, and (on the host) relative names that go through
 * a symlink in the workspace. Each path is judged by {@link PathPolicy}; system tool directories are
 * allowed read-only. A token is treated as a write when it follows a redirection or belongs to a
 * command that modifies its arguments (`rm`, `mv`, `tee`, the destination of `cp`, `sed -i`, ...).
 * A link (`ln`, `cp -s`) may only point at what the command could write: a link to `/` or `/usr`
 * would let later commands reach the host through a relative name.
 *
 * The root directory itself (`ls /`, `cat /?tc/passwd`) is judged by whole shell words
 * (`command-words.ts`), and the script of `bash -c` or `eval` is checked as a command of its own. A
 * `/word` whose first name has non-ASCII letters (`echo '健康检查 /端口 状态'`) is read as text when no
 * such top-level entry exists.
 *
 * On the local provider this is a guard against mistakes and plain attempts, not a security
 * boundary: text can always be assembled at run time (`$(printf ...)`). Under bubblewrap the mount
 * namespace is the boundary and this check only keeps the model's view consistent.
 */
import path from "node:path";
import fs from "node:fs";
import type { PathAccess, PathPolicy } from "./path-policy.js";
import { rewriteShellPaths } from "./shell-rewrite.js";
import { COMMAND_WRAPPERS, checkCommandWords } from "./command-words.js";
import { VIRTUAL_USER_DATA, VIRTUAL_WORKSPACE, isInsideDir } from "./virtual-paths.js";

/** Which non-virtual absolute paths a command may name. */
export interface CommandPathOptions {
  /** Prefixes a command may read but not write (system tool directories). */
  readOnlyPrefixes: readonly string[];
  /** Prefixes a command may read and write (`/dev/null`, a private `/tmp`). */
  writablePrefixes: readonly string[];
  /** Host directory of the workspace; when set, relative names that exist there are checked for symlinks. */
  hostWorkspace?: string;
}

/** System directories every provider lets a command read: the shell needs its tools. */
export const SYSTEM_READ_ONLY_PREFIXES = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"] as const;
/** Device files a command may read and write on every provider. */
export const SAFE_DEVICE_PATHS = [
  "/dev/null",
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/stdin",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/fd",
  "/dev/tty",
] as const;

const ABSOLUTE_TOKEN = /(^|[\s'"`=:;|&<>(){}[\],!])(\/[^\s'"`=:;|&<>(){}[\],$*?!#]*)/g;
/** `file:` followed by anything, in any case, not inside a longer word (`profile:` is fine). */
const FILE_URL = /(^|[^A-Za-z0-9+.-])file:[^\s]/i;
/** `/devices/{id}`: a path with a `{placeholder}` that bash does not expand (no `,` or `..` inside). */
const PATH_TEMPLATE =
  /(^|[\s'"=:(])(\/[^\s'"`=:;|&<>(){}[\],$*?!#]*\{[^\s'"`=:;|&<>(){}[\],$*?!#]*\}[^\s'"`=:;|&<>()]*)/g;
const DOT_DOT = /(^|[\s'"`=:;|&<>(){}/])\.\.(?=$|[\s'"`;|&<>(){}/])/;
const TILDE_USER = /(^|[\s'"`=:;|&<>(){}])~[A-Za-z_]/;
const SEGMENT_SPLIT = /&&|\|\||[;&|\n(){}`]|\$\(/;

const WRITES_ALL = new Set([
  "rm",
  "rmdir",
  "touch",
  "mkdir",
  "mv",
  "tee",
  "chmod",
  "chown",
  "chgrp",
  "truncate",
  "unlink",
  "shred",
  "dd",
  "mkfifo",
  "mknod",
  "patch",
]);
const WRITES_LAST = new Set(["cp", "ln", "install", "rsync"]);
/** Nesting of `bash -c` scripts checked as commands of their own. */
const MAX_SCRIPT_DEPTH = 4;
/**
 * Returns the sentence that says why (without "Error: ") when the command names a path the policy
 * refuses, or `null` when every path it names is allowed.
 *
 * @example
 * ```ts
 * checkCommandPaths("cat /etc/passwd", policy, { readOnlyPrefixes: SYSTEM_READ_ONLY_PREFIXES, writablePrefixes: [] });
 * // "Access denied: /etc/passwd is outside the sandbox. ..."
 * ```
 */
export function checkCommandPaths(command: string, policy: PathPolicy, options: CommandPathOptions): string | null {
  return checkCommand(command, policy, options, 0);
}

function checkCommand(command: string, policy: PathPolicy, options: CommandPathOptions, depth: number): string | null {
  if (command.includes("\u0000")) return "Access denied: the command contains a NUL byte.";
  if (FILE_URL.test(command)) {
    return "Access denied: file: URLs read the host's files directly, outside the sandbox. Use a path under /mnt/user-data/ instead.";
  }
  // '/devices/{id}' is a URL template or message text (bash leaves such braces alone), not a file.
  const text = blankUrls(command).replace(PATH_TEMPLATE, (found, lead: string, template: string) =>
    /,|\.\./.test(template) ? found : lead + " ".repeat(template.length),
  );
  if (DOT_DOT.test(text)) {
    return "Access denied: path traversal ('..') is not allowed in commands. Use absolute paths under /mnt/user-data/ instead.";
  }
  if (TILDE_USER.test(text)) {
    return "Access denied: '~user' names another user's home directory, which is outside the sandbox. Use /mnt/user-data/workspace.";
  }
  for (const segment of text.split(SEGMENT_SPLIT)) {
    const error = checkSegment(segment, policy, options);
    if (error) return error;
  }
  return checkCommandWords(command, (script) =>
    depth < MAX_SCRIPT_DEPTH ? checkCommand(script, policy, options, depth + 1) : null,
  );
}

/**
 * Blanks out `scheme://…` URLs (their paths are not host paths). One left-to-right pass: each `://` is
 * extended left over scheme characters (never past the previous URL) and right to the next space or
 * quote, so a huge token costs linear time, not quadratic as a backtracking regex would.
 */
export function blankUrls(command: string): string {
  const parts: string[] = [];
  let done = 0;
  let from = 0;
  for (;;) {
    const at = command.indexOf("://", from);
    if (at === -1) break;
    let start = at;
    while (start > done && /[A-Za-z0-9+.-]/.test(command[start - 1]!)) start -= 1;
    while (start < at && !/[A-Za-z]/.test(command[start]!)) start += 1;
    if (start === at) {
      from = at + 3;
      continue;
    }
    let end = at + 3;
    while (end < command.length && !/[\s'"`<>]/.test(command[end]!)) end += 1;
    parts.push(command.slice(done, start), " ".repeat(end - start));
    done = end;
    from = end;
  }
  parts.push(command.slice(done));
  return parts.join("");
}

/** Whether the text before a token ends in an output redirection (`>`, `>>`, `>|`, `&>`, `2>`), quotes and spaces aside. */
function endsInRedirection(segment: string, end: number): boolean {
  let k = end - 1;
  while (k >= 0 && (segment[k] === "'" || segment[k] === '"')) k -= 1;
  while (k >= 0 && /\s/.test(segment[k]!)) k -= 1;
  if (segment[k] === ">") return true;
  return segment[k] === "|" && segment[k - 1] === ">";
}

/** `token` without trailing dots and commas (sentence punctuation), in linear time. */
function trimPunctuation(token: string): string {
  let end = token.length;
  while (end > 0 && (token[end - 1] === "." || token[end - 1] === ",")) end -= 1;
  return token.slice(0, end);
}

function checkSegment(segment: string, policy: PathPolicy, options: CommandPathOptions): string | null {
  const words = splitWords(segment);
  const program = commandName(words);
  const linking = program !== undefined && makesLinks(program, words);
  const writesAll = program !== undefined && (WRITES_ALL.has(program) || modifiesInPlace(program, words));
  const lastWord = words.length > 0 ? stripQuotes(words.at(-1)!) : undefined;
  const seen = new Set<string>();
  for (const match of segment.matchAll(ABSOLUTE_TOKEN)) {
    const token = trimPunctuation(match[2]!) || "/";
    const redirected = endsInRedirection(segment, match.index! + match[1]!.length);
    const isLast = lastWord !== undefined && lastWord.startsWith(token);
    const access: PathAccess =
      redirected || writesAll || linking || (program !== undefined && WRITES_LAST.has(program) && isLast)
        ? "write"
        : "read";
    if (seen.has(`${access}:${token}`)) continue;
    seen.add(`${access}:${token}`);
    const error = checkAbsoluteToken(token, access, policy, options, program, linking);
    if (error) return error;
  }
  if (options.hostWorkspace) {
    const access: PathAccess = writesAll || /[^<]>/.test(segment) ? "write" : "read";
    const checked = new Set<string>();
    for (const word of words.slice(1)) {
      if (checked.has(word)) continue;
      checked.add(word);
      const error = checkRelativeWord(word, access, policy, options.hostWorkspace);
      if (error) return error;
    }
  }
  return null;
}

function checkAbsoluteToken(
  token: string,
  access: PathAccess,
  policy: PathPolicy,
  options: CommandPathOptions,
  program: string | undefined,
  linking: boolean,
): string | null {
  if (policy.isVirtual(token)) {
    const decision = policy.resolve(token, access);
    return decision.ok ? null : decision.error;
  }
  if (options.writablePrefixes.some((prefix) => isInsideDir(token, prefix))) return null;
  if (linking) {
    return (
      `Access denied: a link to ${token} would lead from the workspace to host files outside the sandbox. ` +
      "Link only to paths under /mnt/user-data/; copy a system file (cp) if you need it there."
    );
  }
  if (options.readOnlyPrefixes.some((prefix) => isInsideDir(token, prefix))) {
    return access === "write"
      ? `Access denied: ${token} is a read-only system path. Write under /mnt/user-data/workspace or /mnt/user-data/outputs instead.`
      : null;
  }
  if (token === "/") {
    // A lone '/' is often a division or a delimiter; reading it as a path is judged by whole words (command-words.ts).
    if (access === "write")
      return "Access denied: the command would modify the root directory '/', which is outside the sandbox.";
    return program === "cd" || program === "pushd"
      ? "Access denied: changing into '/' leaves the sandbox. Stay under /mnt/user-data/ and use absolute paths there."
      : null;
  }
  if (access === "read" && isNonAsciiText(token)) return null;
  return (
    `Access denied: ${token} is outside the sandbox. Commands may use /mnt/user-data/ (workspace, uploads, outputs), ` +
    `/mnt/skills/ (read-only) and system tool directories. If the path is only text (e.g. inside a heredoc), write the file with write_file instead.`
  );
}

/**
 * `/端口` in `echo '健康检查 /端口 状态'` is text: no system's top-level directory has a non-ASCII name.
 * (DeerFlow treats any `/word` with a non-ASCII letter as text; `/home/用户/.ssh` is a real path, so here
 * only the first name counts, and only when the host has no such entry.)
 */
function isNonAsciiText(token: string): boolean {
  const first = token.slice(1).split("/")[0]!;
  return /[^\x00-\x7f]/.test(first) && !existsNoFollow(`/${first}`);
}

/** A relative name that exists in the workspace and leads out through a symlink is refused. */
function checkRelativeWord(word: string, access: PathAccess, policy: PathPolicy, hostWorkspace: string): string | null {
  let name = stripQuotes(word);
  if (name.startsWith("-")) name = name.includes("=") ? name.slice(name.indexOf("=") + 1) : "";
  if (name === "" || name.startsWith("/") || /[$*?`\\]/.test(name)) return null;
  const first = name.split("/")[0]!;
  if (first === "" || first === "." || !existsNoFollow(path.join(hostWorkspace, first))) return null;
  const decision = policy.resolve(`${VIRTUAL_WORKSPACE}/${name}`, access);
  return decision.ok || !decision.error.includes("symlink") ? null : decision.error;
}

/**
 * Rewrites virtual paths in a command to the host paths behind them (local provider only), each quoted
 * for where it stands (see `shell-rewrite.ts`). Matches only whole path prefixes: `/mnt/user-data-x`
 * is left alone.
 */
export function rewriteVirtualPaths(command: string, policy: PathPolicy): string {
  const roots: Array<[string, string]> = [[VIRTUAL_USER_DATA, policy.userDataDir]];
  if (policy.skillsDir) roots.push([policy.skillsVirtualPath, policy.skillsDir]);
  for (const mount of policy.mounts) roots.push([mount.containerPath, mount.hostPath]);
  return rewriteShellPaths(command, roots);
}

function splitWords(segment: string): string[] {
  return segment.split(/\s+/).filter(Boolean);
}

function commandName(words: string[]): string | undefined {
  for (const word of words) {
    const bare = stripQuotes(word);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(bare) || COMMAND_WRAPPERS.has(bare) || bare.startsWith("-")) continue;
    return path.posix.basename(bare);
  }
  return undefined;
}

/** `ln`, `link`, and `cp -s`/`cp -l` (symbolic or hard links instead of copies). */
function makesLinks(program: string, words: string[]): boolean {
  if (program === "ln" || program === "link") return true;
  if (program !== "cp") return false;
  return words
    .map(stripQuotes)
    .some((flag) => /^-[A-Za-z]*[sl]/.test(flag) || flag === "--symbolic-link" || flag === "--link");
}

function modifiesInPlace(program: string, words: string[]): boolean {
  const flags = words.map(stripQuotes);
  if (program === "sed" || program === "perl")
    return flags.some((flag) => /^-[A-Za-z]*i/.test(flag) || flag === "--in-place");
  if (program === "find")
    return flags.some((flag) => ["-delete", "-exec", "-execdir", "-ok", "-fprint"].includes(flag));
  if (program === "tar") return flags.some((flag) => /^-?[a-z]*x/.test(flag) || flag === "--extract");
  if (program === "unzip" || program === "git") return true;
  return false;
}

function stripQuotes(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && (word[start] === "'" || word[start] === '"')) start += 1;
  while (end > start && (word[end - 1] === "'" || word[end - 1] === '"')) end -= 1;
  return word.slice(start, end);
}

function existsNoFollow(hostPath: string): boolean {
  try {
    fs.lstatSync(hostPath);
    return true;
  } catch {
    return false;
  }
}
