import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyPage, decodeBody, htmlToMarkdown } from "./page-to-markdown.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

test("the Content-Type decides, and the bytes decide when it is missing or generic", () => {
  assert.equal(classifyPage("text/html; charset=utf-8", bytes("")), "html");
  assert.equal(classifyPage("application/vnd.api+json", bytes("{}")), "json");
  assert.equal(classifyPage("text/csv", bytes("a,b")), "text");
  assert.equal(classifyPage("application/rss+xml", bytes("<rss/>")), "text");
  assert.equal(classifyPage("application/pdf", bytes("")), "pdf");
  assert.equal(classifyPage("image/jpeg", bytes("")), "binary");
  assert.equal(classifyPage("application/zip", bytes("PK")), "binary");
  assert.equal(classifyPage(undefined, bytes("%PDF-1.7")), "pdf");
  assert.equal(classifyPage(undefined, Buffer.from([1, 0, 2])), "binary");
  assert.equal(classifyPage("application/octet-stream", bytes("  <!DOCTYPE html><html>")), "html");
  assert.equal(classifyPage(undefined, bytes('{"a":1}')), "json");
  assert.equal(classifyPage(undefined, bytes("just words")), "text");
});

test("bodies are decoded with the header's charset, else the page's <meta charset>, else UTF-8", () => {
  const latin1 = Buffer.from('<html><head><meta charset="iso-8859-1"></head><body>caf\xe9</body></html>', "latin1");
  assert.match(decodeBody("text/html", latin1), /café/);
  assert.match(decodeBody("text/html; charset=windows-1252", Buffer.from("caf\xe9", "latin1")), /café/);
  assert.equal(decodeBody("text/plain; charset=no-such-charset", bytes("café")), "café");
  assert.equal(decodeBody(undefined, bytes("café")), "café");
});

test("a page without an article falls back to its body, minus scripts and navigation", () => {
  const { markdown } = htmlToMarkdown(
    '<html><body><nav>Menu</nav><div>Short <a href="x">note</a></div><script>evil()</script></body></html>',
    "https://example.com/a/",
  );
  assert.match(markdown, /Short \[note\]\(https:\/\/example\.com\/a\/x\)/);
  assert.doesNotMatch(markdown, /Menu|evil/);
});

test("javascript: links lose their target", () => {
  const { markdown } = htmlToMarkdown(
    '<html><body><p>Click <a href="javascript:alert(1)">here</a> now.</p></body></html>',
    "https://example.com/",
  );
  assert.doesNotMatch(markdown, /javascript:/);
});

test("a hostile, deeply nested page is still converted instead of stalling the process", { timeout: 30_000 }, () => {
  const depth = 3000;
  const html = `<html><body>${"<div>".repeat(depth)}deep text${"</div>".repeat(depth)}</body></html>`;
  assert.match(htmlToMarkdown(html, "https://example.com/").markdown, /deep text/);
});
