/**
 * The server calls behind the bar under the last answer: follow-up suggestions (the server's
 * `suggestions:` config, then one POST with the recent turns, as DeerFlow's frontend sends it), thumbs
 * up/down with a comment on the answer's run, and the conversation's export as a file.
 */
import type { Message } from "@langchain/langgraph-sdk";
import { apiFetch } from "../api";
import { isShown, shownText } from "./messages";

/** How many recent messages the suggestions request carries (DeerFlow's frontend sends six). */
const RECENT = 6;

/** The server's suggestion settings. */
export interface SuggestionsConfig {
  enabled: boolean;
  max_suggestions: number;
}

/** Stored feedback on a run. */
export interface Feedback {
  feedback_id: string;
  rating: 1 | -1;
  comment: string | null;
}

const json = (body: unknown, method = "POST"): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const runPath = (threadId: string, runId: string) =>
  `/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/feedback`;

/** The recent visible turns as `{role, content}`. */
export function recentTurns(messages: readonly Message[]): { role: "user" | "assistant"; content: string }[] {
  return messages
    .filter((message) => (message.type === "human" || message.type === "ai") && isShown(message))
    .map((message) => ({
      role: message.type === "human" ? ("user" as const) : ("assistant" as const),
      content: shownText(message).trim(),
    }))
    .filter((turn) => turn.content !== "")
    .slice(-RECENT);
}

/** The run that wrote the last answer: the harness stamps each run's user message with its id. */
export function runOfLastTurn(messages: readonly Message[]): string | undefined {
  const human = [...messages].reverse().find((message) => message.type === "human");
  const runId = (human as { additional_kwargs?: { run_id?: unknown } } | undefined)?.additional_kwargs?.run_id;
  return typeof runId === "string" && runId !== "" ? runId : undefined;
}

export async function suggestionsConfig(apiKey: string | undefined): Promise<SuggestionsConfig> {
  return (await (await apiFetch("/suggestions/config", apiKey)).json()) as SuggestionsConfig;
}

export async function fetchSuggestions(
  threadId: string,
  messages: readonly Message[],
  config: SuggestionsConfig,
  model: string | undefined,
  apiKey: string | undefined,
  signal?: AbortSignal,
): Promise<string[]> {
  const turns = recentTurns(messages);
  if (!config.enabled || turns.length === 0) return [];
  const response = await apiFetch(`/threads/${encodeURIComponent(threadId)}/suggestions`, apiKey, {
    ...json({ messages: turns, n: config.max_suggestions, ...(model ? { model_name: model } : {}) }),
    signal,
  });
  const { suggestions } = (await response.json()) as { suggestions?: unknown };
  return Array.isArray(suggestions) ? suggestions.filter((s): s is string => typeof s === "string" && s !== "") : [];
}

/** The caller's feedback on the run (run-level), or null. */
export async function readFeedback(threadId: string, runId: string, apiKey: string | undefined) {
  const all = (await (await apiFetch(runPath(threadId, runId), apiKey)).json()) as Array<
    Feedback & { message_id: string | null }
  >;
  return all.find((entry) => entry.message_id === null) ?? null;
}

export async function saveFeedback(
  threadId: string,
  runId: string,
  rating: 1 | -1,
  comment: string,
  apiKey: string | undefined,
): Promise<Feedback> {
  const response = await apiFetch(runPath(threadId, runId), apiKey, json({ rating, comment: comment || null }, "PUT"));
  return (await response.json()) as Feedback;
}

export async function clearFeedback(threadId: string, runId: string, apiKey: string | undefined): Promise<void> {
  await apiFetch(runPath(threadId, runId), apiKey, { method: "DELETE" }).catch((error: { status?: number }) => {
    if (error.status !== 404) throw error;
  });
}

/** Downloads the conversation as `format` (the server names the file after the title). */
export async function downloadExport(threadId: string, format: "md" | "json", apiKey: string | undefined) {
  const response = await apiFetch(`/threads/${encodeURIComponent(threadId)}/export?format=${format}`, apiKey);
  const name = /filename\*=UTF-8''([^;]+)/.exec(response.headers.get("content-disposition") ?? "")?.[1];
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name ? decodeURIComponent(name) : `conversation.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
