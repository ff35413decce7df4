/**
 * Splits a shell command into simple commands and their words as bash reads them: quotes and escapes
 * removed, `$(…)` and backquotes as commands of their own, comments and here-document bodies skipped,
 * arithmetic (`$((4 / 2))`, `(( x / 2 ))`) kept out of the words. The command path check needs this
 * where quoting decides the meaning: `awk '{print $1 / 2}'` has one argument, not a `/`, while
 * `cat /?tc/passwd` has a glob over the host's root directory.
 *
 * Not a parser: nothing is expanded or evaluated, so the words are what the text says, not what runs.
 * One left-to-right pass, linear in the command's length.
 */

/** One word of a simple command. */
export interface ShellWord {
  /** The word with quotes and escapes removed. */
  text: string;
  /**
   * Index in `text` of the first character the shell expands at run time (an unquoted `*`, `?`, `[`, a
   * brace list `{a,b}`, a `$` outside single quotes, a command substitution), or -1 when it has none.
   */
  expandsAt: number;
}

type Quote = "" | "'" | '"' | "$'";

interface Frame {
  kind: "top" | "subst" | "backtick";
  /** Open parentheses inside a `$(…)`. */
  depth: number;
  quote: Quote;
  words: ShellWord[];
  word: ShellWord | null;
}

interface Heredoc {
  delimiter: string;
  stripTabs: boolean;
}

/**
 * The simple commands of `command`, each as its list of words, in the order they end.
 *
 * @example
 * ```ts
 * splitShellCommands(`awk '{print $1 / 2}' data && ls /`).map((words) => words.map((word) => word.text));
 * // [["awk", "{print $1 / 2}", "data"], ["ls", "/"]]
 * ```
 */
export function splitShellCommands(command: string): ShellWord[][] {
  const commands: ShellWord[][] = [];
  const stack: Frame[] = [frameOf("top")];
  const pending: Heredoc[] = [];
  const n = command.length;
  let i = 0;

  const top = () => stack[stack.length - 1]!;
  const wordOf = (frame: Frame) => {
    frame.word ??= { text: "", expandsAt: -1 };
    return frame.word;
  };
  const append = (text: string) => {
    wordOf(top()).text += text;
  };
  const markExpansion = () => {
    const word = wordOf(top());
    if (word.expandsAt < 0) word.expandsAt = word.text.length;
  };
  const endWord = () => {
    const frame = top();
    if (frame.word) frame.words.push(frame.word);
    frame.word = null;
  };
  const endCommand = () => {
    endWord();
    const frame = top();
    if (frame.words.length > 0) commands.push(frame.words);
    frame.words = [];
  };
  const open = (kind: Frame["kind"], length: number) => {
    markExpansion();
    stack.push(frameOf(kind));
    i += length;
  };
  const close = () => {
    endCommand();
    stack.pop();
    i += 1;
  };
  /** At `((` (after a `$` or not): the index just past the matching `))`. */
  const arithmeticEnd = (from: number) => {
    let depth = 0;
    for (let j = from; j < n; j += 1) {
      if (command[j] === "(") depth += 1;
      else if (command[j] === ")") {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
    }
    return n;
  };
  const skipHeredocBodies = () => {
    // `i` is just past a newline: each pending body follows in order, up to its delimiter line.
    for (const doc of pending.splice(0)) {
      while (i < n) {
        const end = command.indexOf("\n", i);
        const lineEnd = end === -1 ? n : end;
        const line = command.slice(i, lineEnd);
        i = end === -1 ? n : end + 1;
        if ((doc.stripTabs ? line.replace(/^\t+/, "") : line) === doc.delimiter) break;
      }
    }
  };
  const readHeredocStart = () => {
    // At `<<` (not `<<<`): the delimiter word is not a word of the command.
    let j = i + 2;
    const stripTabs = command[j] === "-";
    if (stripTabs) j += 1;
    while (command[j] === " " || command[j] === "\t") j += 1;
    let delimiter = "";
    while (j < n && !/[\s;&|<>()]/.test(command[j]!)) {
      const c = command[j]!;
      if (c === "'" || c === '"') {
        const closing = command.indexOf(c, j + 1);
        const stop = closing === -1 ? n : closing;
        delimiter += command.slice(j + 1, stop);
        j = stop + 1;
      } else if (c === "\\") {
        delimiter += command[j + 1] ?? "";
        j += 2;
      } else {
        delimiter += c;
        j += 1;
      }
    }
    if (delimiter !== "") pending.push({ delimiter, stripTabs });
    i = Math.min(j, n);
  };

  while (i < n) {
    const frame = top();
    const c = command[i]!;
    if (frame.quote === "'") {
      if (c === "'") frame.quote = "";
      else append(c);
      i += 1;
      continue;
    }
    if (frame.quote === "$'") {
      if (c === "\\") {
        append(command[i + 1] ?? "");
        i += 2;
        continue;
      }
      if (c === "'") frame.quote = "";
      else append(c);
      i += 1;
      continue;
    }
    if (frame.quote === '"') {
      if (c === '"') {
        frame.quote = "";
        i += 1;
      } else if (c === "\\" && i + 1 < n && '"\\$`\n'.includes(command[i + 1]!)) {
        append(command[i + 1]!);
        i += 2;
      } else if (c === "$" && command[i + 1] === "(" && command[i + 2] === "(") {
        markExpansion();
        const end = arithmeticEnd(i + 1);
        append(command.slice(i, end));
        i = end;
      } else if (c === "$" && command[i + 1] === "(") {
        open("subst", 2);
      } else if (c === "`") {
        open("backtick", 1);
      } else {
        if (c === "$") markExpansion();
        append(c);
        i += 1;
      }
      continue;
    }
    // Unquoted: the shell's own word rules.
    if (c === " " || c === "\t") {
      endWord();
      i += 1;
    } else if (c === "\n") {
      endCommand();
      i += 1;
      if (pending.length > 0) skipHeredocBodies();
    } else if (c === "#" && frame.word === null) {
      const end = command.indexOf("\n", i);
      i = end === -1 ? n : end;
    } else if (c === "\\") {
      if (command[i + 1] !== "\n") append(command[i + 1] ?? "");
      i += 2;
    } else if (c === "'" || c === '"') {
      wordOf(frame);
      frame.quote = c;
      i += 1;
    } else if (c === "$" && command[i + 1] === "'") {
      wordOf(frame);
      frame.quote = "$'";
      i += 2;
    } else if (c === "$" && command[i + 1] === "(" && command[i + 2] === "(") {
      markExpansion();
      const end = arithmeticEnd(i + 1);
      append(command.slice(i, end));
      i = end;
    } else if (c === "$" && command[i + 1] === "(") {
      open("subst", 2);
    } else if (c === "`") {
      if (frame.kind === "backtick") close();
      else open("backtick", 1);
    } else if (c === "(" && command[i + 1] === "(" && frame.word === null && frame.words.length === 0) {
      // `(( x = 4 / 2 ))`: an arithmetic command, not words.
      i = arithmeticEnd(i);
      endCommand();
    } else if (c === "(") {
      if (frame.kind === "subst") frame.depth += 1;
      endCommand();
      i += 1;
    } else if (c === ")") {
      if (frame.kind === "subst" && frame.depth === 0) close();
      else {
        if (frame.kind === "subst") frame.depth -= 1;
        endCommand();
        i += 1;
      }
    } else if (c === "<" && command[i + 1] === "<" && command[i + 2] !== "<") {
      endWord();
      readHeredocStart();
    } else if (c === "<" || c === ">" || (c === "&" && command[i + 1] === ">")) {
      // A redirection (`>`, `>>`, `2>&1`, `&>`, `>|`, `<<<`): its target is the next word.
      endWord();
      i += 1;
      while (i < n && /[<>&|]/.test(command[i]!)) i += 1;
    } else if (c === ";" || c === "&" || c === "|") {
      endCommand();
      i += 1;
    } else {
      if (c === "*" || c === "?" || c === "[" || c === "$" || (c === "{" && isBraceList(command, i))) markExpansion();
      append(c);
      i += 1;
    }
  }
  while (stack.length > 1) {
    endCommand();
    stack.pop();
  }
  endCommand();
  return commands;
}

function frameOf(kind: Frame["kind"]): Frame {
  return { kind, depth: 0, quote: "", words: [], word: null };
}

/**
 * Whether the `{` at `at` opens a brace expansion (`{a,b}`, `{1..3}`): a `,` or `..` before its `}`, in
 * one word. The look ahead stops at the next `{`, so a run of braces costs linear time.
 */
function isBraceList(command: string, at: number): boolean {
  for (let j = at + 1; j < command.length; j += 1) {
    const c = command[j]!;
    if (c === "}" || c === "{" || /[\s;&|<>()'"`]/.test(c)) return false;
    if (c === "," || (c === "." && command[j + 1] === ".")) return true;
  }
  return false;
}
