/**
 * The `demo` model: a deterministic chat model with tool calling that plays `demo-script.ts`.
 *
 * It ships in the product so the harness can be seen working offline; it is labelled as the demo model
 * in everything it says. Tests use the scripted models of `testing/` instead.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import {
  BaseChatModel,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { randomUUID } from "node:crypto";
import { nextDemoStep } from "./demo-script.js";

/** The offline demo model. Bind tools to it (createAgent does) and it walks through its script. */
export class DemoChatModel extends BaseChatModel {
  private readonly toolNames: string[];

  constructor(fields: BaseChatModelParams & { toolNames?: string[] } = {}) {
    super(fields);
    this.toolNames = fields.toolNames ?? [];
  }

  _llmType(): string {
    return "deerflow-demo";
  }

  override bindTools(tools: BindToolsInput[]): Runnable {
    const names = tools.map((tool) => toolName(tool)).filter((name): name is string => Boolean(name));
    return new DemoChatModel({ toolNames: names }) as unknown as Runnable;
  }

  async _generate(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const step = nextDemoStep(messages, this.toolNames);
    const message = new AIMessage({
      id: `demo-${randomUUID()}`,
      content: step.content,
      tool_calls: step.toolCalls.map((call) => ({
        ...call,
        id: `call_demo_${randomUUID().slice(0, 12)}`,
        type: "tool_call" as const,
      })),
      response_metadata: { model_name: "demo", model_provider: "deerflow-demo" },
    });
    return { generations: [{ text: step.content, message }] };
  }
}

function toolName(tool: BindToolsInput): string | undefined {
  const candidate = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof candidate.name === "string") return candidate.name;
  if (typeof candidate.function?.name === "string") return candidate.function.name;
  return undefined;
}
