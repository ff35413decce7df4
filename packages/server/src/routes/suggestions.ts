/**
 * Follow-up suggestions (DeerFlow's `suggestions` router): `GET /suggestions/config` tells the client
 * whether to ask (`suggestions.enabled`, `suggestions.max_suggestions` in config.yaml), and
 * `POST /threads/{id}/suggestions {messages, n, model_name?}` answers `{suggestions}` written by one
 * model call over the recent turns the client sends (DeerFlow's frontend sends the last six visible
 * messages as `{role, content}`). The model is `suggestions.model_name`, else the one the request names,
 * else the default; the demo model answers fixed questions that say they come from it.
 *
 * As in DeerFlow, a model failure answers an empty list (logged), never an error: the chips are a
 * convenience under the answer. Bad input is still a 422 saying which field is wrong.
 */
import { type ConversationLine, createChatModel, selectModel, suggestFollowUps } from "@deerflow/harness";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { HttpError } from "../http/errors.js";
import { parseBody, pathId } from "../http/validate.js";
import { requireThread } from "../runs/threads.js";

/** DeerFlow's upper bound on `n`. */
const MAX_N = 5;

const SuggestionsSchema = z.strictObject({
  messages: z
    .array(z.strictObject({ role: z.string().min(1).max(32), content: z.string().max(20_000) }))
    .max(50, "send at most 50 recent messages"),
  n: z.number().int().min(1).max(MAX_N).default(3),
  model_name: z.string().min(1).nullish(),
});

/** The chat model that writes suggestions for a request naming `modelName`. */
function suggestionModel(context: ServerContext, modelName: string | undefined): BaseChatModel {
  const { config, env, options } = context.harness.setup;
  const named = config.suggestions.model_name ?? modelName;
  // A model given in code (tests, embedding) answers for the default model, as it does for runs.
  if (!named && options.chatModel) return options.chatModel;
  let entry;
  try {
    entry = selectModel(config, { modelName: named ?? undefined }, env).entry;
  } catch (error) {
    throw new HttpError(422, `Invalid body field "model_name": ${(error as Error).message.split("\n")[0]}`);
  }
  return createChatModel(entry, {
    thinkingEnabled: false,
    timeoutSeconds: entry.timeout ?? config.llm_call.timeout_seconds,
  });
}

/** Registers the suggestion routes. */
export const registerSuggestionRoutes: RegisterRoutes = (api, context) => {
  const settings = () => context.config.suggestions;

  api.get("/suggestions/config", (c) =>
    c.json({ enabled: settings().enabled, max_suggestions: settings().max_suggestions }),
  );

  api.post("/threads/:thread_id/suggestions", async (c) => {
    const threadId = pathId(c, "thread_id");
    const body = await parseBody(c, SuggestionsSchema);
    await requireThread(context, callerOf(c), threadId);
    if (!settings().enabled) return c.json({ suggestions: [] });
    const lines: ConversationLine[] = body.messages.filter((line) => line.content.trim() !== "");
    if (lines.length === 0) return c.json({ suggestions: [] });
    const model = suggestionModel(context, body.model_name ?? undefined);
    const count = Math.min(body.n, settings().max_suggestions);
    try {
      return c.json({ suggestions: await suggestFollowUps(model, lines, count, c.req.raw.signal) });
    } catch (error) {
      context.options.log(`suggestions for thread ${threadId}: ${(error as Error).message.split("\n")[0]}`);
      return c.json({ suggestions: [] });
    }
  });
};
