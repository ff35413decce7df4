/**
 * `deerflow cron add | list | remove`: scheduled runs from the shell, in the database that holds the
 * threads (the home's SQLite file, or Postgres), so they can be set up before the server runs and beside
 * a running one; `deerflow serve` fires them. A cron made here is checked exactly as the API checks one
 * (`createCron`): a bad schedule or time zone is refused with the reason and an example.
 *
 * Crons belong to the home's local user unless `--user NAME` names an account, as the API would make
 * them for that user's token.
 */
import { type CronRecord, createCron, HttpError, type ServerContext } from "@deerflow/server";
import { parseCommandArgs } from "../command-args.js";
import { openServerContext } from "../server-context.js";
import { writeOut } from "../output.js";
import { terminalSafe } from "../terminal-text.js";
import { UsageError } from "../usage-error.js";

/** Each action and the flags it takes (besides --config and --user). */
const ACTIONS: Record<string, string[]> = {
  list: ["json"],
  add: ["schedule", "timezone", "thread", "assistant", "catch-up", "keep-threads", "deliver-to"],
  remove: [],
};

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Entry point of `deerflow cron`. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs("cron", {
    args: argv,
    options: {
      config: { type: "string" },
      user: { type: "string" },
      schedule: { type: "string" },
      timezone: { type: "string", default: "UTC" },
      thread: { type: "string" },
      assistant: { type: "string", default: "lead_agent" },
      "catch-up": { type: "string", default: "latest" },
      "keep-threads": { type: "boolean", default: false },
      "deliver-to": { type: "string" },
      json: { type: "boolean", default: false },
    },
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
  const [action = "list", ...rest] = parsed.positionals;
  const values = parsed.values;
  const flags = ACTIONS[action];
  if (!flags)
    throw new UsageError(
      `Unknown cron action "${action}". Use one of: ${Object.keys(ACTIONS).join(", ")} (deerflow cron --help).`,
    );
  const given = parsed.tokens.flatMap((token) => (token.kind === "option" ? [token.name] : []));
  const misplaced = given.find((flag) => flag !== "config" && flag !== "user" && !flags.includes(flag));
  if (misplaced)
    throw new UsageError(`--${misplaced} does not apply to deerflow cron ${action}. See deerflow cron --help.`);
  if (action === "list" && rest.length > 0)
    throw new UsageError("list takes no argument: deerflow cron list [--json].");
  if (action === "remove" && rest.length !== 1) throw new UsageError("Give one cron id: deerflow cron remove ID.");
  if (action === "add") {
    if (!values.schedule)
      throw new UsageError(
        'Give the schedule: deerflow cron add --schedule "0 9 * * 1-5" [--timezone Asia/Shanghai] "task".',
      );
    if (rest.length !== 1 || !rest[0]!.trim())
      throw new UsageError(
        'Give the task as one argument (quote it): deerflow cron add --schedule "0 9 * * 1-5" "Summarise the news".',
      );
  }

  const home = await openServerContext(values.config, say);
  try {
    const owner = await ownerOf(home.context, values.user);
    switch (action) {
      case "list":
        return await list(home.context, owner, values.json);
      case "add":
        return await add(home.context, owner, rest[0]!, values);
      default:
        return await remove(home.context, owner, rest[0]!);
    }
  } finally {
    await home.close();
  }
}

/** The owner id of `--user NAME` (null: the home's local user). */
async function ownerOf(context: ServerContext, name: string | undefined): Promise<string | null> {
  if (name === undefined) return null;
  const user = await context.users.byName(name);
  if (!user) throw new UsageError(`No user named "${terminalSafe(name)}". deerflow users list shows them.`);
  return user.id;
}

async function add(
  context: ServerContext,
  owner: string | null,
  task: string,
  options: {
    schedule?: string;
    timezone: string;
    thread?: string;
    assistant: string;
    "catch-up": string;
    "keep-threads": boolean;
    "deliver-to"?: string;
  },
): Promise<number> {
  let cron: CronRecord;
  try {
    cron = await createCron(
      context,
      { userId: owner, name: "cli", admin: false, via: "open" },
      options.thread ?? null,
      {
        assistant_id: options.assistant,
        schedule: options.schedule,
        timezone: options.timezone,
        catch_up: options["catch-up"],
        on_run_completed: options["keep-threads"] ? "keep" : "delete",
        input: { messages: [{ role: "user", content: task }] },
        ...(options["deliver-to"] ? { deliver_to: deliverTo(options["deliver-to"]) } : {}),
      },
    );
  } catch (error) {
    if (error instanceof HttpError) throw new UsageError(error.detail);
    throw error;
  }
  say(`Added cron ${cron.cron_id}: "${cron.schedule}" (${cron.timezone}), next run ${cron.next_run_at ?? "never"}.`);
  if (cron.deliver_to) say(`Each run's answer goes to ${cron.deliver_to.channel} ${cron.deliver_to.target}.`);
  say("deerflow serve fires it; deerflow cron list shows it.");
  writeOut(`${cron.cron_id}\n`);
  return 0;
}

/** `--deliver-to telegram:<chat id>` or `slack:<channel id>` as the cron's deliver_to. */
function deliverTo(value: string): { channel: string; target: string } {
  const colon = value.indexOf(":");
  if (colon <= 0 || colon === value.length - 1)
    throw new UsageError(
      `--deliver-to "${terminalSafe(value)}" is not CHANNEL:TARGET. Use telegram:<chat id> or slack:<channel id>, e.g. --deliver-to telegram:123456789.`,
    );
  return { channel: value.slice(0, colon), target: value.slice(colon + 1) };
}

/** The task a cron sends: its first message's text. */
function taskOf(cron: CronRecord): string {
  const input = cron.payload.input as { messages?: Array<{ content?: unknown }> } | null | undefined;
  const content = input?.messages?.[0]?.content;
  return typeof content === "string" ? content : JSON.stringify(input ?? null);
}

async function list(context: ServerContext, owner: string | null, json: boolean): Promise<number> {
  const crons = await context.crons.search({
    owner,
    limit: 1000,
    offset: 0,
    sort_by: "created_at",
    sort_order: "asc",
  });
  if (json) {
    writeOut(`${JSON.stringify(crons, null, 2)}\n`);
    return 0;
  }
  if (crons.length === 0) {
    say('No crons. Add one: deerflow cron add --schedule "0 9 * * 1-5" "task".');
    return 0;
  }
  for (const cron of crons) {
    const state = cron.enabled ? `next ${cron.next_run_at ?? "never"}` : "disabled";
    const last = cron.last_run_id ? `, last run ${cron.last_run_at}` : "";
    const where = cron.thread_id ? ` on thread ${cron.thread_id}` : "";
    const to = cron.deliver_to ? ` to ${cron.deliver_to.channel}:${terminalSafe(cron.deliver_to.target)}` : "";
    writeOut(
      `${cron.cron_id}  "${cron.schedule}" ${cron.timezone}  ${state}${last}${where}${to}  ${terminalSafe(taskOf(cron)).slice(0, 80)}\n`,
    );
  }
  return 0;
}

async function remove(context: ServerContext, owner: string | null, cronId: string): Promise<number> {
  if (!(await context.crons.delete(cronId, owner))) {
    say(`No cron ${terminalSafe(cronId)}. deerflow cron list shows them.`);
    return 1;
  }
  await context.announceCrons();
  say(`Removed cron ${cronId}.`);
  return 0;
}
