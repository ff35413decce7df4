import assert from "node:assert/strict";
import { test } from "node:test";
import { checkItems, checkTemplate, MAX_BATCH_ITEMS, parseCsv, parseItemsFile, renderPrompt } from "./input.js";

test("items files: JSONL values, CSV rows as objects by header (quoted fields, CRLF), text lines", () => {
  assert.deepEqual(parseItemsFile('{"a":1}\n\n"two"\n', "/x/items.jsonl"), {
    ok: true,
    items: ['{"a":1}', '"two"'],
  });
  assert.deepEqual(parseItemsFile('name,note\r\n"Doe, J","said ""hi"""\r\nRoe,\r\n', "/x/people.CSV"), {
    ok: true,
    items: [JSON.stringify({ name: "Doe, J", note: 'said "hi"' }), JSON.stringify({ name: "Roe", note: "" })],
  });
  assert.deepEqual(parseItemsFile("one\n  \ntwo\n", "/x/list.txt"), { ok: true, items: ['"one"', '"two"'] });
  assert.deepEqual(parseCsv("a,b\n1,2"), [
    ["a", "b"],
    ["1", "2"],
  ]);
});

test("bad items say what to fix", () => {
  const error = (result: ReturnType<typeof checkItems>) => (result.ok ? "" : result.error);
  assert.match(error(parseItemsFile('{"a":1}\nnot json\n', "/x/i.jsonl")), /line 2 of \/x\/i\.jsonl is not JSON/);
  assert.match(error(parseItemsFile("", "/x/i.csv")), /has no header row/);
  assert.match(error(parseItemsFile("a", "/x/i.xlsx")), /not a \.jsonl, \.csv or \.txt file/);
  assert.match(error(checkItems([], "items")), /has no items/);
  assert.match(error(checkItems(["a", ""], "items")), /item 1 of items is empty/);
  assert.match(
    error(checkItems(new Array(MAX_BATCH_ITEMS + 1).fill("x"), "items")),
    /10001 items; one batch takes at most 10000/,
  );
  assert.match(error(checkItems(["x".repeat(20_001)], "items")), /at most 20000/);
});

test("templates: {item} and {item.field} are filled, other braces kept; bad templates are refused", () => {
  assert.equal(renderPrompt("Sum {item} as {json}", '"a b"'), "Sum a b as {json}");
  assert.equal(
    renderPrompt("Name {item.name}, all {item}", '{"name":"Ada","n":1}'),
    'Name Ada, all {"name":"Ada","n":1}',
  );
  assert.equal(renderPrompt(null, '"its own prompt"'), "its own prompt");
  assert.equal(checkTemplate("Do {item}", ['"a"', "3"]), null);
  assert.match(checkTemplate("Do it", ['"a"'])!, /no \{item\} placeholder/);
  assert.match(checkTemplate("Do {item.name}", ['{"name":"a"}', '"b"'])!, /item 1 has no field "name"/);
  assert.match(checkTemplate(null, ['"a"', '{"x":1}'])!, /item 1 is not text, and there is no prompt_template/);
});
