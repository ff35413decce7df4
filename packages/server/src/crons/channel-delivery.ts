/**
 * A cron's `deliver_to`: each firing's final answer, and the files its run presented, posted to a chat
 * channel (Telegram, Slack) through `postToChannel`. It rides on the webhook delivery rows: the row is
 * written before the run exists, with a `channel:<name>:<target>` address instead of a URL, and the
 * deliverer retries a failed post as it retries a webhook, so a crash or a platform outage costs a
 * retry, never the message.
 */
import { PathPolicy, readFileChecked, threadUserDataDir } from "@deerflow/harness";
import { MAX_RETURNED_FILE_BYTES, textOf } from "../channels/conversations.js";
import type { OutgoingFile } from "../channels/types.js";
import type { ServerContext } from "../context.js";
import type { DeliverTo } from "./types.js";

const PREFIX = "channel:";

/** The delivery address of a channel target. */
export function channelAddress(deliverTo: DeliverTo): string {
  return `${PREFIX}${deliverTo.channel}:${deliverTo.target}`;
}

/** The channel target of a delivery address, or null for a webhook URL. */
export function channelOf(address: string): DeliverTo | null {
  if (!address.startsWith(PREFIX)) return null;
  const rest = address.slice(PREFIX.length);
  const colon = rest.indexOf(":");
  const channel = rest.slice(0, colon);
  if (channel !== "telegram" && channel !== "slack") return null;
  return { channel, target: rest.slice(colon + 1) };
}

/** The run as the deliverer's body carries it. */
interface DeliveredRun {
  thread_id: string;
  status: string;
  values: { messages?: Array<Record<string, unknown>>; artifacts?: unknown } | null;
  error: { message?: string } | null;
  metadata?: { scheduled_task?: { title?: string } };
}

/** The message a firing posts: its last AI message, or why the run did not finish. */
export function answerOf(run: DeliveredRun): string {
  const title = run.metadata?.scheduled_task?.title;
  const heading = title ? `${title}\n\n` : "";
  if (run.status === "error" || run.status === "timeout")
    return `${heading}The scheduled run failed: ${run.error?.message ?? run.status}.`;
  const last = [...(run.values?.messages ?? [])].reverse().find((message) => message.type === "ai");
  const text = last ? textOf(last.content) : "";
  if (run.status === "interrupted") return `${heading}${text}\n\n(The run was stopped.)`.trim();
  return `${heading}${text || "(The run finished without an answer.)"}`;
}

/** The files the run presented (its thread's `artifacts`) that are still on disk and small enough to send. */
async function presentedFiles(context: ServerContext, run: DeliveredRun): Promise<OutgoingFile[]> {
  const list = Array.isArray(run.values?.artifacts) ? (run.values.artifacts as unknown[]) : [];
  const policy = new PathPolicy({ userDataDir: threadUserDataDir(context.harness.home, run.thread_id) });
  const files: OutgoingFile[] = [];
  for (const path of list.filter((item): item is string => typeof item === "string")) {
    const target = policy.resolve(path, "read");
    if (!target.ok) continue;
    try {
      const { data, size } = await readFileChecked(policy, target, MAX_RETURNED_FILE_BYTES + 1);
      if (size <= MAX_RETURNED_FILE_BYTES) files.push({ name: path.split("/").at(-1) ?? "file", data });
    } catch {
      // The thread's files are gone (a stateless firing whose thread was deleted): the text still goes.
    }
  }
  return files;
}

/**
 * Posts a delivered run to its chat; null when sent, else why not and whether a retry cannot help
 * (the channel is no longer configured).
 */
export async function sendToChannel(
  context: ServerContext,
  deliverTo: DeliverTo,
  body: string,
): Promise<{ message: string; final: boolean } | null> {
  if (!context.channels.configured(deliverTo.channel))
    return { message: `the ${deliverTo.channel} channel is no longer configured`, final: true };
  const run = JSON.parse(body) as DeliveredRun;
  try {
    await context.channels.postToChannel(
      deliverTo.channel,
      deliverTo.target,
      answerOf(run),
      await presentedFiles(context, run),
    );
    return null;
  } catch (error) {
    return { message: (error as Error).message, final: false };
  }
}
