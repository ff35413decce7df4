/**
 * What the Telegram and Slack conversation tests share: the fake model's script (a long answer streamed
 * slowly enough to be seen in several edits, an answer that names an uploaded file it was told about,
 * and a report it writes and presents) and small readers of its requests.
 */
import type { FakeStep } from "@deerflow/harness/testing";

/** The answer to "tell me about deer": long enough to stream in many pieces. */
export const LONG_ANSWER = Array.from(
  { length: 12 },
  (_, i) => `Deer fact ${i + 1}: deer shed and regrow their antlers every year.`,
).join("\n");

export const REPORT_PATH = "/mnt/user-data/outputs/deer-report.md";
export const REPORT = "# Deer report\n\nAntlers regrow every year.\n";
export const NOTES = "The notes say: red deer live in herds.\n";

type ChatBody = { messages: Array<{ role: string; content?: unknown }> };

/** The last user message's text and the tool results after it. */
function sinceUser(body: ChatBody) {
  const at = body.messages.map((message) => message.role).lastIndexOf("user");
  const user = body.messages[at];
  const text = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
  return { text, tools: body.messages.slice(at + 1).filter((message) => message.role === "tool").length };
}

/** How many user messages a model request carries (1 on a fresh thread). */
export function userMessages(body: ChatBody): number {
  return body.messages.filter((message) => message.role === "user").length;
}

/** The fake model of the channel tests. */
export function channelScript(body: ChatBody): FakeStep {
  const { text, tools } = sinceUser(body);
  if (text.includes("write the report")) {
    if (tools === 0)
      return {
        tool_calls: [{ name: "write_file", arguments: { description: "report", path: REPORT_PATH, content: REPORT } }],
      };
    if (tools === 1) return { tool_calls: [{ name: "present_files", arguments: { filepaths: [REPORT_PATH] } }] };
    return { content: "The report is attached." };
  }
  const upload = /\/mnt\/user-data\/uploads\/notes[^\s)<]*\.txt/.exec(text);
  if (upload) return { content: `I was given ${upload[0]}.` };
  if (text.includes("tell me about deer")) return { content: LONG_ANSWER };
  return { content: `echo: ${text.slice(0, 60)}` };
}

/** Slow enough delivery that an answer streams over several edit intervals. */
export const SLOW_DELIVERY = { maxPieceBytes: 200, pauseMs: 15 };
/** The edit interval the tests give the channels (the platforms' own limits would make them slow). */
export const TEST_EDIT_INTERVAL_MS = 60;
