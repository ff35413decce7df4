/**
 * The whole-word half of the command path check (`command-paths.ts` scans path tokens in the raw text).
 * A lone `/` is often text (`expr 4 / 2`, `cut -d / -f 2`, `print(4 / 2)` inside a quoted script), so
 * the root directory is judged by the words bash will see (`shell-words.ts`): a word that names it
 * (`/`, `/.`, `//`) is refused unless the command only treats its arguments as text, and a word whose
 * expansion starts in it (`/*` then `/passwd`, `/?tc`, `/$d/x`) unless the command only prints it.
 * Without it `ls /`, `find / -name id_rsa` and `export HOME=/` pass: the token scan only catches
 * `cd /` and writes to `/`. The script given to `bash -c` or `eval` is handed back to be checked as a
 * command.
 */
import path from "node:path";
import { type ShellWord, splitShellCommands } from "./shell-words.js";

/** Programs that never open their arguments: a word naming or expanding over `/` is only text to them. */
const NEVER_OPENS = new Set([
  "echo",
  "printf",
  "expr",
  "test",
  "[",
  "[[",
  "let",
  "case",
  "tr",
  "basename",
  "dirname",
  "true",
  "false",
  ":",
]);
/** Programs where a lone `/` is a delimiter or an operator (`cut -d /`, `awk -F /`); other words may be files. */
const SLASH_AS_TEXT = new Set(["cut", "awk", "gawk", "mawk", "sed", "sort", "join", "paste", "column", "bc"]);
/** Builtins whose `NAME=value` arguments are assignments (`export HOME=/`). */
const DECLARES = new Set(["export", "declare", "local", "readonly", "typeset"]);
/** Shells whose `-c` argument is a script of its own. */
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh"]);
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/;
/** Words before the program that run it (`sudo`, `env`, `xargs`) or are shell keywords (`then`, `do`). */
export const COMMAND_WRAPPERS: ReadonlySet<string> = new Set([
  "sudo",
  "env",
  "nohup",
  "time",
  "command",
  "exec",
  "nice",
  "xargs",
  "builtin",
  "then",
  "do",
  "else",
  "if",
  "while",
  "until",
]);

/**
 * Returns the sentence that says why (without "Error: ") when a word of `command` reaches the root
 * directory, or what `checkScript` says of the script of a `bash -c` or `eval` in it; else `null`.
 *
 * @example
 * ```ts
 * checkCommandWords("expr 4 / 2 && ls /", () => null);
 * // "Access denied: '/' reaches the host's root directory, outside the sandbox. ..."
 * ```
 */
export function checkCommandWords(command: string, checkScript: (script: string) => string | null): string | null {
  for (const words of splitShellCommands(command)) {
    const error = checkWords(words, checkScript);
    if (error) return error;
  }
  return null;
}

function checkWords(words: ShellWord[], checkScript: (script: string) => string | null): string | null {
  let at = 0;
  for (; at < words.length; at += 1) {
    const text = words[at]!.text;
    const assignment = ASSIGNMENT.exec(text);
    if (assignment) {
      if (assignment[1] !== "IFS" && reachesRoot(tail(words[at]!, assignment[0].length))) return rootError(text);
      continue;
    }
    if (!COMMAND_WRAPPERS.has(text) && !text.startsWith("-") && !["{", "}", "!"].includes(text)) break;
  }
  if (at >= words.length) return null;
  const program = path.posix.basename(words[at]!.text);
  const args = words.slice(at + 1);
  const script =
    program === "eval"
      ? args.map((word) => word.text).join(" ")
      : SHELLS.has(program)
        ? args[args.findIndex((word) => /^-[A-Za-z]*c[A-Za-z]*$/.test(word.text)) + 1]?.text
        : undefined;
  if (script !== undefined) {
    const error = checkScript(script);
    if (error) return error;
  }
  for (const word of args) {
    const assignment = DECLARES.has(program) ? ASSIGNMENT.exec(word.text) : null;
    if (assignment) {
      if (assignment[1] !== "IFS" && reachesRoot(tail(word, assignment[0].length))) return rootError(word.text);
      continue;
    }
    const option = /^--?[A-Za-z][\w-]*=/.exec(word.text);
    const reach = reachesRoot(option ? tail(word, option[0].length) : word);
    if (reach === "root" && !NEVER_OPENS.has(program) && !SLASH_AS_TEXT.has(program)) return rootError(word.text);
    if (reach === "expansion" && !NEVER_OPENS.has(program)) return rootError(word.text);
  }
  return null;
}

/** The part of `word` from `offset` on (an assignment's or an option's value). */
function tail(word: ShellWord, offset: number): ShellWord {
  return { text: word.text.slice(offset), expandsAt: word.expandsAt < 0 ? -1 : Math.max(0, word.expandsAt - offset) };
}

/**
 * `"root"` when the word names the root directory (`/`, `/.`, `//`, `/./`); `"expansion"` when what the
 * shell expands in it is a name in the root directory (`/*`, `/?tc`, `/$d`, `/{etc,x}`); else null.
 */
function reachesRoot(word: ShellWord): "root" | "expansion" | null {
  if (word.expandsAt < 0) {
    return word.text.startsWith("/") && /^[/.]*$/.test(word.text) && path.posix.normalize(word.text) === "/"
      ? "root"
      : null;
  }
  const fixed = word.text.slice(0, word.expandsAt);
  const dir = fixed.slice(0, fixed.lastIndexOf("/") + 1);
  return dir.startsWith("/") && /^[/.]*$/.test(dir) && path.posix.normalize(dir) === "/" ? "expansion" : null;
}

function rootError(word: string): string {
  const shown = word.length > 60 ? `${word.slice(0, 57)}...` : word;
  return (
    `Access denied: '${shown}' reaches the host's root directory, outside the sandbox. Use paths under /mnt/user-data/ instead. ` +
    "If '/' is only text here (a delimiter or an operator), attach it to its neighbour (cut -d/, awk -F/) or quote the whole expression as one word ('4 / 2')."
  );
}
