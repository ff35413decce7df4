import { test } from "node:test";
import assert from "node:assert/strict";
import { renderSubagentPromptSection } from "./prompt-section.js";
import { createSubagentRegistry } from "./registry.js";

test("the section defaults to direct work, states the clamped limit and lists the types", () => {
  const registry = createSubagentRegistry({
    bashAllowed: true,
    customAgents: { researcher: { description: "Finds <sources>.\nMore detail." } },
  });
  const text = renderSubagentPromptSection({ maxConcurrent: 2, types: registry.list() });
  assert.ok(text.startsWith("<subagent_system>") && text.endsWith("</subagent_system>"));
  assert.match(text, /Do the work yourself by default/);
  assert.match(text, /At most 2 `task` calls per response/);
  assert.match(text, /^- general-purpose: /m);
  assert.match(text, /^- bash: /m);
  assert.match(text, /^- researcher: Finds &lt;sources&gt;\.$/m, "first line only, escaped");
  assert.doesNotMatch(text, /More detail/);
});

test("the announced limit is the one the middleware enforces", () => {
  const types = [{ name: "general-purpose", description: "Anything." }];
  assert.match(renderSubagentPromptSection({ maxConcurrent: 9, types }), /At most 4 `task` calls/);
  assert.match(
    renderSubagentPromptSection({ maxConcurrent: 1, types }),
    /Subagents run one at a time: at most 1 `task` call per response/,
  );
  assert.ok(!/run in parallel/.test(renderSubagentPromptSection({ maxConcurrent: 1, types })));
  assert.match(renderSubagentPromptSection({ types }), /At most 3 `task` calls/);
  assert.match(renderSubagentPromptSection({ types }), /At most 6 `task` calls per run/);
  assert.match(renderSubagentPromptSection({ maxTotal: 2, types }), /At most 2 `task` calls per run/);
});

test("with background tasks on, the section tells the lead how to run, collect and not abandon them", () => {
  const types = [{ name: "general-purpose", description: "Anything." }];
  const plain = renderSubagentPromptSection({ types });
  assert.match(plain, /there is nothing to poll/);
  assert.doesNotMatch(plain, /run_in_background/);
  const background = renderSubagentPromptSection({ types, background: true });
  assert.match(background, /With `run_in_background: true` it returns at once/);
  assert.match(background, /call `background_tasks` with action "collect"/);
  assert.match(background, /unfinished ones are cancelled when your run ends/);
  assert.doesNotMatch(background, /nothing to poll/);
});
