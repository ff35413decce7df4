import { test } from "node:test";
import assert from "node:assert/strict";
import { tool } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { z } from "zod";
import { optionalInt, shownAs, withoutSchemaDialect } from "./tool-args.js";

const parameters = (t: Parameters<typeof convertToOpenAITool>[0]) =>
  JSON.stringify(convertToOpenAITool(t).function.parameters);

test("a whole number is shown as a bare integer, without zod's safe-integer bounds, and still takes null", async () => {
  const count = tool(async ({ n }) => String(n), {
    name: "count",
    description: "d",
    schema: z.object({
      n: optionalInt.describe("How many."),
      from: shownAs(z.number().int().min(1), { type: "integer", minimum: 1 }),
    }),
  });
  const shown = parameters(count);
  assert.doesNotMatch(shown, /9007199254740991|anyOf/);
  assert.match(shown, /"n":\{"type":"integer","description":"How many\."\}/);
  assert.match(shown, /"from":\{"type":"integer","minimum":1\}/);
  assert.equal(await count.invoke({ n: null, from: 2 } as never), "null");
  await assert.rejects(count.invoke({ n: 1.5, from: 2 }), /did not match/);
  await assert.rejects(count.invoke({ n: 1, from: 0 }), /did not match/);
});

test("withoutSchemaDialect drops the $schema line and keeps the schema's validation", async () => {
  const echo = tool(async ({ text }) => text, {
    name: "echo",
    description: "d",
    schema: z.object({ text: z.string().min(1) }),
  });
  assert.match(parameters(echo), /^\{"\$schema":/);
  withoutSchemaDialect(echo);
  assert.match(parameters(echo), /^\{"type":"object"/);
  assert.equal(await echo.invoke({ text: "hi" }), "hi");
  await assert.rejects(echo.invoke({ text: "" }), /did not match/);
});
