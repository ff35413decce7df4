/**
 * The items of a `batch_task` call and the prompt of each: items come inline (a list) or from a file in
 * the sandbox (JSONL, CSV with a header row, or plain text with one item per line), and each becomes a
 * prompt through the template's `{item}` / `{item.field}` placeholders, or is its own prompt when there
 * is no template. Everything is checked before the batch is recorded, so a bad call changes nothing and
 * its error says what to fix.
 */

/** Most items one batch may have. */
export const MAX_BATCH_ITEMS = 10_000;
/** Longest item (as JSON text), in characters. */
export const MAX_ITEM_CHARS = 20_000;
/** Largest items file read, in bytes. */
export const MAX_ITEMS_FILE_BYTES = 20 * 1024 * 1024;

/** Items as JSON texts, or what was wrong. */
export type ItemsResult = { ok: true; items: string[] } | { ok: false; error: string };

const PLACEHOLDER = /\{item(?:\.([A-Za-z_][\w-]*))?\}/g;

/** Checks a list of items: not empty, not over the limit, each small enough. */
export function checkItems(values: readonly unknown[], source: string): ItemsResult {
  if (values.length === 0)
    return {
      ok: false,
      error: `${source} has no items. Give at least one item (the list \`items\` or a file in \`items_file\`).`,
    };
  if (values.length > MAX_BATCH_ITEMS)
    return {
      ok: false,
      error: `${source} has ${values.length} items; one batch takes at most ${MAX_BATCH_ITEMS}. Split the items into several batch_task calls.`,
    };
  const items: string[] = [];
  for (const [index, value] of values.entries()) {
    if (value === null || value === undefined || value === "")
      return { ok: false, error: `item ${index} of ${source} is empty. Remove it or give it a value.` };
    const text = JSON.stringify(value);
    if (text.length > MAX_ITEM_CHARS)
      return {
        ok: false,
        error: `item ${index} of ${source} is ${text.length} characters; an item may have at most ${MAX_ITEM_CHARS}. Put long inputs in files and pass their paths as items.`,
      };
    items.push(text);
  }
  return { ok: true, items };
}

/** Parses an items file's text by its extension (`.jsonl`, `.csv`, `.txt`). */
export function parseItemsFile(text: string, virtualPath: string): ItemsResult {
  const extension = virtualPath.toLowerCase().split(".").pop();
  if (extension === "jsonl" || extension === "ndjson") {
    const values: unknown[] = [];
    for (const [number, line] of text.split(/\r?\n/).entries()) {
      if (line.trim() === "") continue;
      try {
        values.push(JSON.parse(line));
      } catch {
        return {
          ok: false,
          error: `line ${number + 1} of ${virtualPath} is not JSON. Each line of a .jsonl file must be one JSON value.`,
        };
      }
    }
    return checkItems(values, virtualPath);
  }
  if (extension === "csv") {
    const rows = parseCsv(text);
    const header = rows.shift();
    if (!header || header.every((cell) => cell.trim() === ""))
      return { ok: false, error: `${virtualPath} has no header row. A .csv file needs column names in its first row.` };
    const values = rows
      .filter((row) => row.some((cell) => cell !== ""))
      .map((row) => Object.fromEntries(header.map((name, column) => [name.trim(), row[column] ?? ""])));
    return checkItems(values, virtualPath);
  }
  if (extension === "txt")
    return checkItems(
      text.split(/\r?\n/).filter((line) => line.trim() !== ""),
      virtualPath,
    );
  return {
    ok: false,
    error: `${virtualPath} is not a .jsonl, .csv or .txt file. Save the items as JSON lines, a CSV with a header, or one item per line.`,
  };
}

/** Splits CSV text into rows of cells (RFC 4180 quoting, CRLF or LF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      row.push(cell);
      cell = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += char;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/**
 * Checks the template against every item: it must name `{item}` or `{item.field}`, and every item must
 * have the fields it names. Without a template every item must be a string (its own prompt).
 */
export function checkTemplate(template: string | null, items: readonly string[]): string | null {
  if (template === null) {
    const index = items.findIndex((item) => typeof JSON.parse(item) !== "string");
    return index < 0
      ? null
      : `item ${index} is not text, and there is no prompt_template. Give a prompt_template with {item} (or {item.field}) placeholders, or make every item a string prompt.`;
  }
  const fields = [...template.matchAll(PLACEHOLDER)].map((match) => match[1]);
  if (fields.length === 0)
    return "prompt_template has no {item} placeholder, so every item would get the same prompt. Put {item} (or {item.field} for object items) where each item goes.";
  for (const field of fields) {
    if (field === undefined) continue;
    for (const [index, text] of items.entries()) {
      const value = JSON.parse(text) as unknown;
      if (typeof value !== "object" || value === null || Array.isArray(value) || !(field in value))
        return `item ${index} has no field "${field}" that prompt_template's {item.${field}} names. Give every item that field, or use {item} for the whole item.`;
    }
  }
  return null;
}

/** The prompt of one item (its JSON text): the template filled in, or the item itself. */
export function renderPrompt(template: string | null, itemText: string): string {
  const value = JSON.parse(itemText) as unknown;
  const show = (part: unknown) => (typeof part === "string" ? part : JSON.stringify(part));
  if (template === null) return show(value);
  return template.replace(PLACEHOLDER, (_match, field: string | undefined) =>
    field === undefined ? show(value) : show((value as Record<string, unknown>)[field]),
  );
}
