/**
 * `deerflow users add | list | token | revoke | remove`: accounts from the shell, in the database that
 * holds the threads (the home's SQLite file, or Postgres), so they work before any server runs and
 * beside running ones. The rules are the server's own (`addUser`, `issueToken`, `removeUser`): the
 * first admin inherits the threads and memory of a home from before accounts, and removing a user
 * removes everything they own.
 *
 * A new token is shown once, alone on the last line of stdout, so `TOKEN=$(deerflow users add bob |
 * tail -1)` captures it; everything else goes to stderr. Listings show a token's 12-character prefix,
 * never the token.
 */
import { openPostgresThreadLeases, openThreadLeases, type ThreadLease } from "@deerflow/harness";
import {
  AccountError,
  addUser,
  issueToken,
  removeUser,
  type ServerContext,
  type TokenRecord,
  UserExistsError,
  type UserRecord,
} from "@deerflow/server";
import { parseCommandArgs } from "../command-args.js";
import { type OpenedHome, openServerContext } from "../server-context.js";
import { writeOut } from "../output.js";
import { canAsk, readFirstLine, readHiddenLine } from "../prompt.js";
import { terminalSafe } from "../terminal-text.js";
import { UsageError } from "../usage-error.js";

/** Each action and the flags it takes (besides --config). */
const ACTIONS: Record<string, string[]> = {
  list: ["json"],
  add: ["admin", "password-stdin"],
  token: ["name"],
  revoke: [],
  remove: ["yes"],
};
/** Fewest characters `revoke` accepts: `dfp_` and four more already single out a token among thousands. */
const MIN_REVOKE_PREFIX = 8;
/** Characters of a token stored in the clear (and shown by `list`); a longer argument is cut to this. */
const SHOWN_PREFIX = 12;

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Entry point of `deerflow users`. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs("users", {
    args: argv,
    options: {
      config: { type: "string" },
      admin: { type: "boolean", default: false },
      "password-stdin": { type: "boolean", default: false },
      name: { type: "string" },
      yes: { type: "boolean", short: "y", default: false },
      json: { type: "boolean", default: false },
    },
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
  const [action = "list", argument, ...extra] = parsed.positionals;
  const values = parsed.values;
  const flags = ACTIONS[action];
  if (!flags)
    throw new UsageError(
      `Unknown users action "${action}". Use one of: ${Object.keys(ACTIONS).join(", ")} (deerflow users --help).`,
    );
  const given = parsed.tokens.flatMap((token) => (token.kind === "option" ? [token.name] : []));
  const misplaced = given.find((flag) => flag !== "config" && !flags.includes(flag));
  if (misplaced)
    throw new UsageError(`--${misplaced} does not apply to deerflow users ${action}. See deerflow users --help.`);
  if (action === "list") {
    if (argument !== undefined) throw new UsageError("list takes no argument: deerflow users list [--json].");
  } else if (!argument || extra.length > 0) {
    const what = action === "revoke" ? "TOKEN-PREFIX" : "NAME";
    throw new UsageError(`Give one ${what.toLowerCase()}: deerflow users ${action} ${what}.`);
  }
  if (action === "revoke" && argument!.length < MIN_REVOKE_PREFIX)
    throw new UsageError(
      `"${argument}" is too short to single out a token: give at least ${MIN_REVOKE_PREFIX} characters of its prefix, as deerflow users list shows it (e.g. dfp_AbCd1234).`,
    );
  // Asked before anything is opened, so a bad password leaves nothing half done.
  const password = action === "add" && values["password-stdin"] ? await readPassword(argument!) : null;

  const accounts = await openServerContext(values.config, say);
  try {
    switch (action) {
      case "list":
        return await listUsers(accounts.context, values.json);
      case "add":
        return await add(accounts.context, argument!, { admin: values.admin, password });
      case "token":
        return await token(accounts.context, argument!, values.name);
      case "revoke":
        return await revoke(accounts.context, argument!);
      default:
        return await remove(accounts, argument!, values.yes);
    }
  } finally {
    await accounts.close();
  }
}

/** The password from stdin: typed twice without echo on a terminal, else the first line piped in. */
async function readPassword(name: string): Promise<string> {
  if (canAsk()) {
    const first = await readHiddenLine(`Password for ${name}: `);
    const again = await readHiddenLine("Password again: ");
    if (first !== again) throw new UsageError("The passwords do not match; nothing was created. Try again.");
    return first;
  }
  const line = await readFirstLine();
  if (!line)
    throw new UsageError(
      "--password-stdin found no password on stdin: pipe it in, e.g. printf '%s\\n' \"$PASSWORD\" | deerflow users add NAME --password-stdin.",
    );
  return line;
}

async function findUser(context: ServerContext, name: string): Promise<UserRecord | null> {
  const user = await context.users.byName(name);
  if (!user) say(`No user named "${terminalSafe(name)}". deerflow users list shows them.`);
  return user;
}

async function add(
  context: ServerContext,
  name: string,
  options: { admin: boolean; password: string | null },
): Promise<number> {
  const users = context.users;
  const firstAdmin = options.admin && (await users.firstAdmin()) === null;
  let user: UserRecord;
  try {
    user = await addUser(
      users,
      { name, password: options.password, admin: options.admin },
      { onFirstAdmin: (created) => context.onFirstAdmin(created) },
    );
  } catch (error) {
    if (error instanceof AccountError) throw new UsageError(error.message);
    if (error instanceof UserExistsError) {
      say(`${error.message} deerflow users token ${name} issues them another token.`);
      return 1;
    }
    throw error;
  }
  const { token } = await issueToken(users, user.id, "api", { name: "deerflow users add" });
  say(
    `Created ${user.admin ? "admin" : "user"} ${user.name}${user.has_password ? " (signs in on the web app with the password)" : " (no password: API tokens only)"}.`,
  );
  if (firstAdmin) say(`${user.name} is the first admin: the home's existing threads and memory are now theirs.`);
  else if (!(await users.firstAdmin()))
    say(
      "note: there is no admin yet. The home's existing threads and memory go to the first admin: deerflow users add NAME --admin.",
    );
  say(`API token for ${user.name} (shown once; send it as X-Api-Key or Authorization: Bearer):`);
  writeOut(`${token}\n`);
  return 0;
}

async function token(context: ServerContext, name: string, label: string | undefined): Promise<number> {
  if (label !== undefined && (label.length === 0 || label.length > 100 || /\p{Cc}/u.test(label)))
    throw new UsageError("--name takes a label of 1-100 characters without control characters (e.g. --name laptop).");
  const user = await findUser(context, name);
  if (!user) return 1;
  const { token } = await issueToken(context.users, user.id, "api", { name: label ?? null });
  say(`New API token for ${user.name} (shown once; send it as X-Api-Key or Authorization: Bearer):`);
  writeOut(`${token}\n`);
  return 0;
}

async function revoke(context: ServerContext, given: string): Promise<number> {
  // A whole token pasted in is matched by the part stored in the clear.
  const prefix = given.slice(0, SHOWN_PREFIX);
  const revoked = await context.users.revokeByPrefix(prefix);
  if (revoked.length === 0) {
    say(
      `No token starts with "${terminalSafe(prefix)}". deerflow users list shows the prefixes of every user's tokens.`,
    );
    return 1;
  }
  const owners = new Map<string, string>();
  for (const record of revoked)
    if (!owners.has(record.user_id)) owners.set(record.user_id, (await context.users.get(record.user_id))?.name ?? "?");
  const shown = revoked.map((record) => `${record.prefix} (${owners.get(record.user_id)}${labelOf(record)})`);
  writeOut(`Revoked ${revoked.length} token${revoked.length === 1 ? "" : "s"}: ${shown.join(", ")}\n`);
  return 0;
}

async function remove(accounts: OpenedHome, name: string, yes: boolean): Promise<number> {
  const { context, harness } = accounts;
  const user = await findUser(context, name);
  if (!user) return 1;
  const threads = await context.users.ownedThreadIds(user.id);
  const what = `${user.name}, their API tokens and their ${threads.length} thread${threads.length === 1 ? "" : "s"} (checkpoints, runs, uploads and outputs)`;
  if (!yes) {
    if (!canAsk())
      throw new UsageError(
        `Refusing to remove ${what} without confirmation: stdin is not a terminal. Pass --yes to remove them.`,
      );
    const answer = await readFirstLine(`This removes ${what}; it cannot be undone.\nType the user name to confirm: `);
    if (answer?.trim() !== user.name) {
      say("Not removed: the name did not match.");
      return 1;
    }
  }
  // Held while deleting, as `deerflow threads delete` does: a thread a run holds is refused, not cut off.
  const postgres = harness.setup.postgres;
  const leases = postgres ? openPostgresThreadLeases(postgres.pool) : openThreadLeases(harness.setup.store!.file);
  const held: ThreadLease[] = [];
  try {
    for (const threadId of threads) {
      const holder = await leases.holder(threadId);
      if (holder) {
        say(
          `Not removed: ${user.name}'s thread ${threadId} has a run going (pid ${holder.pid} on ${holder.host}). Let it finish or stop it, then try again.`,
        );
        return 1;
      }
      held.push(await leases.acquire(threadId));
    }
    const removed = await removeUser(context, user.id);
    say(`Removed ${user.name} with ${removed} thread${removed === 1 ? "" : "s"}.`);
    return 0;
  } finally {
    for (const lease of held) await lease.release();
    await leases.close();
  }
}

async function listUsers(context: ServerContext, json: boolean): Promise<number> {
  const users = context.users;
  const rows = await Promise.all(
    (await users.list()).map(async (user) => ({
      user,
      tokens: await users.listTokens(user.id, "api"),
      sessions: (await users.listTokens(user.id, "session")).length,
    })),
  );
  if (json) {
    const out = rows.map(({ user, tokens, sessions }) => ({
      id: user.id,
      name: user.name,
      email: user.email,
      admin: user.admin,
      has_password: user.has_password,
      oidc: user.oidc_issuer !== null,
      created_at: user.created_at,
      tokens: tokens.map(({ prefix, name, created_at, last_used_at, expires_at }) => ({
        prefix,
        name,
        created_at,
        last_used_at,
        expires_at,
      })),
      sessions,
    }));
    writeOut(`${JSON.stringify({ users: out }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    writeOut(
      "No users yet: accounts are off (the server is open, or closed by server.api_keys). Create the first admin with: deerflow users add NAME --admin\n",
    );
    return 0;
  }
  const lines: string[] = [];
  for (const { user, tokens, sessions } of rows) {
    const signIn =
      [user.has_password && "password", user.oidc_issuer && "oidc"].filter(Boolean).join("+") || "tokens only";
    lines.push(
      `${terminalSafe(user.name)}  ${user.admin ? "admin" : "user"}  ${signIn}  created ${when(user.created_at)}  ${count(tokens.length, "API token")}, ${count(sessions, "session")}`,
    );
    for (const record of tokens)
      lines.push(
        `  ${record.prefix}  created ${when(record.created_at)}  ${record.last_used_at ? `last used ${when(record.last_used_at)}` : "never used"}${record.name ? `  ${terminalSafe(record.name)}` : ""}`,
      );
  }
  writeOut(`${lines.join("\n")}\n`);
  return 0;
}

const when = (iso: string) => iso.replace("T", " ").slice(0, 16);
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const labelOf = (record: TokenRecord) => (record.name ? `, ${terminalSafe(record.name)}` : "");
