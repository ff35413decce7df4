import { test } from "node:test";
import assert from "node:assert/strict";
import { splitShellCommands } from "./shell-words.js";

const texts = (command: string) => splitShellCommands(command).map((words) => words.map((word) => word.text));

test("quotes join a word and are removed; operators end a command", () => {
  assert.deepEqual(texts(`awk '{print $1 / 2}' data && ls -la "/mnt/user data"; echo a\\ b | wc`), [
    ["awk", "{print $1 / 2}", "data"],
    ["ls", "-la", "/mnt/user data"],
    ["echo", "a b"],
    ["wc"],
  ]);
  assert.deepEqual(texts(`echo $'a\\'b' "x\\"y" ''`), [["echo", "a'b", 'x"y', ""]]);
});

test("command substitutions are commands of their own; arithmetic, comments and here-documents are not words", () => {
  assert.deepEqual(texts(`echo "today: $(date +%F)" \`id -u\``), [
    ["date", "+%F"],
    ["id", "-u"],
    ["echo", "today: ", ""],
  ]);
  assert.deepEqual(texts("echo $((8 / 2)); (( x = 8 / 2 )) # a / comment\nls"), [["echo", "$((8 / 2))"], ["ls"]]);
  assert.deepEqual(texts("cat <<'EOF' > out.txt\nls /\n/etc/passwd\nEOF\nwc -l out.txt"), [
    ["cat", "out.txt"],
    ["wc", "-l", "out.txt"],
  ]);
  assert.deepEqual(texts("ls /tmp &>/dev/null; echo x>|out.txt"), [
    ["ls", "/tmp", "/dev/null"],
    ["echo", "x", "out.txt"],
  ]);
});

test("expandsAt marks where the shell expands at run time, not inside quotes", () => {
  const at = (command: string) => splitShellCommands(command)[0]!.map((word) => word.expandsAt);
  assert.deepEqual(at(`cat /*/passwd '/*' "/$d" /{a,b} /{id} /x`), [-1, 1, -1, 1, 1, -1, -1]);
});
