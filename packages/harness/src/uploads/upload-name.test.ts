import { test } from "node:test";
import assert from "node:assert/strict";
import { cleanUploadName, numberedName } from "./upload-name.js";

test("names that could point elsewhere are refused with a reason", () => {
  const cases: Array<[unknown, RegExp]> = [
    ["../../x", /path separator/],
    ["a/b.txt", /path separator/],
    ["a\\b.txt", /path separator/],
    ["", /empty/],
    ["   ", /empty/],
    [undefined, /empty/],
    ["..", /not a file name/],
    [".", /not a file name/],
    ["a\u0000b", /control characters/],
    ["line\nbreak", /control characters/],
    [".upload-abc.part", /reserved/],
    ["x".repeat(241), /longer than 240 bytes/],
  ];
  for (const [name, pattern] of cases) {
    const result = cleanUploadName(name);
    assert.equal(typeof result, "object", String(name));
    assert.match((result as { error: string }).error, pattern);
  }
});

test("awkward but harmless names are tidied", () => {
  assert.equal(cleanUploadName("notes (1).txt"), "notes (1).txt");
  assert.equal(cleanUploadName("  report.pdf "), "report.pdf");
  assert.equal(cleanUploadName("-rf"), "_rf");
  assert.equal(cleanUploadName("a<b>|c?.md"), "a_b__c_.md");
  assert.equal(cleanUploadName("cafe\u0301.txt"), "caf\u00e9.txt", "NFC");
});

test("numberedName adds _N before the extension", () => {
  assert.equal(numberedName("a.txt", 0), "a.txt");
  assert.equal(numberedName("a.txt", 2), "a_2.txt");
  assert.equal(numberedName("Makefile", 1), "Makefile_1");
  assert.equal(numberedName(".env", 1), ".env_1");
});

test("shell-hostile characters and bidi controls become _", () => {
  assert.equal(cleanUploadName("a;b&c'd!e.txt"), "a_b_c_d_e.txt");
  assert.equal(cleanUploadName("invoice\u202Efdp.exe"), "invoice_fdp.exe");
  assert.equal(cleanUploadName("x\u2066y\u2069\u200F.md"), "x_y__.md");
});
