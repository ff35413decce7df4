/**
 * Rewrites virtual paths in a shell command to the host paths behind them (local provider only), quoted
 * for the exact place they appear. The host path comes from `DEER_FLOW_HOME`, which may hold spaces,
 * quotes or `$`; pasted in unquoted, `echo hi > /mnt/user-data/workspace/a.txt` would split into words
 * and write somewhere else. So the command is scanned once, left to right, tracking the shell's quoting
 * context (plain, '…', "…", $'…', $(…), `…`, comments, here-documents), and each host prefix is
 * written in the quoting that makes the shell see exactly that text there. The scan is linear in the
 * command's length.
 */

type Context = "plain" | "single" | "double" | "ansi" | "subst" | "backtick";

interface Frame {
  kind: Context;
  /** Open parentheses inside a `$(…)` frame. */
  depth: number;
}

interface PendingHeredoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
}

const PATH_CHAR = /[A-Za-z0-9._/-]/;
const NAME_CHAR = /[A-Za-z0-9._-]/;

/** The host path `host` as the shell must see it in context `kind`. */
function quoteFor(kind: Context | "heredoc" | "heredoc-literal", host: string): string {
  switch (kind) {
    case "single":
      return host.replace(/'/g, `'\\''`);
    case "double":
      return host.replace(/[\\"$`]/g, "\\$&");
    case "ansi":
      return host.replace(/[\\']/g, "\\$&");
    case "heredoc":
      return host.replace(/[\\$`]/g, "\\$&");
    case "heredoc-literal":
      return host;
    default:
      return `'${host.replace(/'/g, `'\\''`)}'`;
  }
}

/**
 * Replaces each whole virtual root (`roots[i][0]`, e.g. `/mnt/user-data`) in `command` by its host path,
 * quoted for its context. `/mnt/user-data-x` is left alone.
 *
 * @example
 * ```ts
 * rewriteShellPaths("cat /mnt/user-data/workspace/a", [["/mnt/user-data", "/home/me/my home/u"]]);
 * // "cat '/home/me/my home/u'/workspace/a"
 * ```
 */
export function rewriteShellPaths(command: string, roots: ReadonlyArray<readonly [string, string]>): string {
  const out: string[] = [];
  const stack: Frame[] = [{ kind: "plain", depth: 0 }];
  const pending: PendingHeredoc[] = [];
  let i = 0;
  const n = command.length;

  const tryRoot = (kind: Context | "heredoc" | "heredoc-literal"): boolean => {
    if (command[i] !== "/" || (i > 0 && PATH_CHAR.test(command[i - 1]!))) return false;
    for (const [virtual, host] of roots) {
      if (!command.startsWith(virtual, i)) continue;
      const after = command[i + virtual.length];
      if (after !== undefined && after !== "/" && NAME_CHAR.test(after)) continue;
      out.push(quoteFor(kind, host));
      i += virtual.length;
      return true;
    }
    return false;
  };

  /** Copies `text`, which stands at `i` in the command, unchanged and moves past it. */
  const copy = (text: string) => {
    out.push(text);
    i += text.length;
  };
  /** Enters a quoting context at its opener (`'`, `$'`, `"`, `$(`, a backtick). */
  const open = (kind: Context, opener: string) => {
    stack.push({ kind, depth: 0 });
    copy(opener);
  };
  /** Leaves the innermost context at its closer. */
  const close = (closer: string) => {
    stack.pop();
    copy(closer);
  };

  const readHeredocBodies = () => {
    // `i` is just past a newline in plain context: each pending here-document body follows in order.
    for (const doc of pending.splice(0)) {
      while (i < n) {
        const end = command.indexOf("\n", i);
        const lineEnd = end === -1 ? n : end;
        const line = command.slice(i, lineEnd);
        const bare = doc.stripTabs ? line.replace(/^\t+/, "") : line;
        if (bare === doc.delimiter) {
          copy(line);
          if (end !== -1) copy("\n");
          break;
        }
        const kind = doc.quoted ? "heredoc-literal" : "heredoc";
        while (i < lineEnd) {
          if (!tryRoot(kind)) out.push(command[i++]!);
        }
        if (end !== -1) copy("\n");
      }
    }
  };

  const readHeredocStart = () => {
    // At `<<` (not `<<<`): copy the operator and delimiter word, remember the body to come.
    let j = i + 2;
    const stripTabs = command[j] === "-";
    if (stripTabs) j += 1;
    while (command[j] === " " || command[j] === "\t") j += 1;
    let delimiter = "";
    let quoted = false;
    while (j < n && !/[\s;&|<>()]/.test(command[j]!)) {
      const c = command[j]!;
      if (c === "'" || c === '"') {
        quoted = true;
        const close = command.indexOf(c, j + 1);
        const stop = close === -1 ? n : close;
        delimiter += command.slice(j + 1, stop);
        j = stop + 1;
      } else if (c === "\\") {
        quoted = true;
        delimiter += command[j + 1] ?? "";
        j += 2;
      } else {
        delimiter += c;
        j += 1;
      }
    }
    if (delimiter !== "") pending.push({ delimiter, quoted, stripTabs });
    copy(command.slice(i, Math.min(j, n)));
  };

  while (i < n) {
    const frame = stack[stack.length - 1]!;
    const c = command[i]!;
    if (frame.kind === "single") {
      if (c === "'") close(c);
      else if (!tryRoot("single")) copy(c);
      continue;
    }
    if (frame.kind === "ansi" || frame.kind === "double") {
      // $'…' ends at `'` and only quotes; "…" ends at `"` and still opens $(…) and `…`.
      const closer = frame.kind === "ansi" ? "'" : '"';
      if (c === "\\") copy(command.slice(i, i + 2));
      else if (c === closer) close(c);
      else if (frame.kind === "double" && c === "$" && command[i + 1] === "(") open("subst", "$(");
      else if (frame.kind === "double" && c === "`") open("backtick", c);
      else if (!tryRoot(frame.kind)) copy(c);
      continue;
    }
    // plain, $(…) and `…`: the shell's own word rules.
    if (c === "\\") {
      copy(command.slice(i, i + 2));
    } else if (c === "'") {
      open("single", c);
    } else if (c === "$" && command[i + 1] === "'") {
      open("ansi", "$'");
    } else if (c === '"') {
      open("double", c);
    } else if (c === "$" && command[i + 1] === "(") {
      open("subst", "$(");
    } else if (c === "`") {
      if (frame.kind === "backtick") close(c);
      else open("backtick", c);
    } else if (c === "(" && frame.kind === "subst") {
      frame.depth += 1;
      copy(c);
    } else if (c === ")" && frame.kind === "subst") {
      if (frame.depth === 0) stack.pop();
      else frame.depth -= 1;
      copy(c);
    } else if (c === "#" && (i === 0 || /[\s;&|()]/.test(command[i - 1]!))) {
      const end = command.indexOf("\n", i);
      copy(command.slice(i, end === -1 ? n : end));
    } else if (
      c === "<" &&
      command[i + 1] === "<" &&
      command[i + 2] !== "<" &&
      !(frame.kind === "subst" && frame.depth > 0)
    ) {
      // (Inside `$((…))` a `<<` is a shift, not a here-document.)
      readHeredocStart();
    } else if (c === "\n") {
      copy(c);
      if (pending.length > 0) readHeredocBodies();
    } else if (!tryRoot("plain")) {
      copy(c);
    }
  }
  return out.join("");
}
