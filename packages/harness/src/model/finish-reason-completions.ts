/**
 * The chat-completions half of ChatOpenAI, with the finish reason of a streamed answer kept on the
 * message. ChatOpenAI puts it only in the last chunk's generation info, which langchain drops when it
 * joins the chunks of a streamed call (a server run with `messages` streaming), so the answer would not
 * say it was cut at the output limit or stopped by a filter (the finish-reason middleware reads
 * `response_metadata.finish_reason`, where a non-streamed answer has it). Passed to ChatOpenAI as its
 * `completions`, so copies made by `bindTools`/`withConfig` keep it.
 *
 * A module of its own because it extends an @langchain/openai class: it loads with the OpenAI provider
 * (chat-model-providers.ts), not with the harness.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import { ChatOpenAICompletions } from "@langchain/openai";

export { ChatOpenAI } from "@langchain/openai";

export class FinishReasonCompletions extends ChatOpenAICompletions {
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    for await (const chunk of super._streamResponseChunks(messages, options, runManager)) {
      const reason = chunk.generationInfo?.finish_reason;
      const metadata = (chunk.message.response_metadata ?? {}) as Record<string, unknown>;
      if (typeof reason === "string" && metadata.finish_reason === undefined)
        chunk.message.response_metadata = { ...metadata, finish_reason: reason };
      yield chunk;
    }
  }
}
