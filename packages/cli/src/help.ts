/** Help texts, kept apart from the commands so `--help` loads nothing else. */

export const HELP = `deerflow: run tasks with the DeerFlow.ts lead agent

Usage:
  deerflow run [options] "task"     run one task, print progress to stderr and the answer to stdout
  deerflow chat [options]           talk with the agent on one thread (/new starts a thread, /exit leaves)
  deerflow threads [--limit N]      list saved threads, newest first
  deerflow threads delete ID        delete a thread (its checkpoints, history and files)
  deerflow threads export ID        print a thread's conversation as Markdown (--format json, --out FILE)
  deerflow threads prune            drop old checkpoints (checkpoints.retention) and reclaim disk space
  deerflow history --thread ID      a thread's whole conversation, including compacted messages
  deerflow memory [show|clear|forget ID|export [FILE]|import FILE]
                                    what the agent remembers about you (--agent NAME for a named agent)
  deerflow mcp list [--json]        MCP servers (mcp_servers, extensions_config.json): status and tools
  deerflow skills [list|enable NAME|disable NAME|install FILE.skill [--force]]
                                    the skills the agent can use
  deerflow agents [list|show|create|edit|delete NAME]
                                    custom agents: a soul (SOUL.md) and settings; run one with --agent NAME
  deerflow serve [--host H] [--port P] the LangGraph-compatible agent server (SDK, agent-chat-ui, DeerFlow UI)
  deerflow db migrate               migrate the Postgres database (database.backend postgres) to this version
  deerflow users [list|add NAME|token NAME|revoke PREFIX|remove NAME]
                                    accounts: users of the server and their API tokens
  deerflow cron [list|add --schedule "M H D M W" TASK|remove ID]
                                    scheduled runs that deerflow serve fires
  deerflow <command> --help         options of a command
  deerflow --version

Configuration: config.yaml (found by --config, DEER_FLOW_CONFIG_PATH, then ./config.yaml), else built-in
defaults. Without models in config, OPENAI_API_KEY (+ OPENAI_BASE_URL, OPENAI_MODEL) or ANTHROPIC_API_KEY
select a model; with neither, the offline demo model runs. Data lives in DEER_FLOW_HOME (default ./.deer-flow).

Exit codes: 0 done, 1 the run failed, 2 usage or configuration error, 3 the agent asked a question.
`;

const COMMON = `  --config PATH        config file (default: DEER_FLOW_CONFIG_PATH, then ./config.yaml)
  --model NAME         a model name from config.yaml
  --thread ID          continue a saved thread (default: a new thread)
  --plan               plan mode: the agent keeps a todo list
  --thinking           ask for thinking (models with supports_thinking only)
  --subagents          let the agent delegate to subagents
  --max-subagents N    task calls allowed per response (1-4, default 3)
  --agent NAME         a custom agent (deerflow agents list): its soul, settings and memory
  --wait SECONDS       when another run holds the thread, wait up to SECONDS for it (default 0)
  --no-stream          print the answer once it is complete (on a terminal it streams as it is written)
`;

const COMMANDS: Record<string, string> = {
  run: `Usage: deerflow run [options] "task"

Runs one task. Progress (model turns, tool calls, todos) goes to stderr, the final answer to stdout,
the thread id to stderr. On a terminal the answer streams as the model writes it; piped or redirected,
it is printed once, complete. With --thread ID and no task, a run that failed midway is resumed.

Options:
${COMMON}  --upload FILE        copy FILE into the thread's uploads first (repeatable)
  --json               print one JSON object: thread_id, answer, title, artifacts, todos,
                       token_usage
                       (on failure: thread_id and error {code, message, exit_code})
  --file PATH          read the task from PATH; a task of "-" reads it from stdin
`,
  chat: `Usage: deerflow chat [options]

An interactive conversation on one thread. Type a message and press Enter.
  /new      start a new thread
  /compact  summarize the thread's older messages now
  /exit     leave (Ctrl-D works too)

Options:
${COMMON}`,
  memory: `Usage: deerflow memory [show | clear | forget <fact-id> | export [file] | import <file>] [--agent NAME] [--config PATH]

What the agent remembers about you, kept in {home}/memory.json ({home}/agents/NAME/memory.json for a
named agent). Facts are extracted in the background after each conversation; one not finished when
deerflow exits waits in memory-pending.json and is learned from by the next deerflow run, chat or serve.
  show              the remembered context, history and facts with their ids (default)
  clear             forget everything
  forget <id>       forget one fact
  export [file]     write the memory as JSON to file (or stdout)
  import <file>     replace the memory with file (validated first; a bad file changes nothing)
`,
  history: `Usage: deerflow history --thread ID [--summaries] [--config PATH]

Prints every message of a thread, including those summarization compacted away, with a marker where
each compaction happened. --summaries also prints the summary written at each marker.
`,
  mcp: `Usage: deerflow mcp list [--json] [--config PATH]

Starts every configured MCP server (config.yaml mcp_servers: and extensions_config.json "mcpServers",
found by DEER_FLOW_EXTENSIONS_CONFIG_PATH, ./extensions_config.json, then ../extensions_config.json),
shows whether it started, its tools or the reason it failed, then stops it again.
`,
  serve: `Usage: deerflow serve [--host 127.0.0.1] [--port 2026] [--config PATH] [--insecure]

Serves the LangGraph Agent Server API (threads, runs, streaming) at / and at /api, for the
@langchain/langgraph-sdk Client, useStream, agent-chat-ui and DeerFlow's frontend. Prints the URL, the
model and the sandbox. A host other than loopback needs API keys (server.api_keys in config.yaml or
DEER_FLOW_API_KEYS=k1,k2; clients send x-api-key or Authorization: Bearer) unless --insecure is given.
Ctrl-C or SIGTERM drains: running runs get a grace period, the rest resume on the next start.

With database.backend postgres, many processes share one database (docs/deploy.md):
  --api-only       answer requests, execute no runs (worker processes do)
  --worker-only    execute runs, answer no requests
  --workers N      this process answers requests; N worker-only child processes execute runs
`,
  skills: `Usage: deerflow skills [list | enable NAME | disable NAME | install FILE.skill [--force]] [--config PATH]

Skills are folders with a SKILL.md the agent reads when a task matches (or when a message starts with
/NAME). public skills ship with DeerFlow.ts; custom ones live in {skills.path}/custom and shadow a
public skill of the same name. Enabled state is saved in extensions_config.json (found by
DEER_FLOW_EXTENSIONS_CONFIG_PATH, then ./, then ../; created in ./ when there is none).
  list                  name, category, enabled state and description (default)
  enable NAME           let the agent use a skill
  disable NAME          hide a skill from the agent (its files stay)
  install FILE.skill    install a skill archive (a ZIP with SKILL.md at its top or in one top folder)
                        into {skills.path}/custom; checked first (size, paths, symlinks, SKILL.md),
                        and refused with the reason, writing nothing, when a check fails
  --force               replace an installed skill of the same name
`,
  agents: `Usage: deerflow agents [list] [--json] [--config PATH]
       deerflow agents show NAME
       deerflow agents create NAME [--soul TEXT | --soul-file FILE] [settings]
       deerflow agents edit NAME [--soul TEXT | --soul-file FILE] [settings] [--clear SETTING]
       deerflow agents delete NAME

Custom agents of this home ({home}/agents/NAME/: SOUL.md and config.yaml, DeerFlow's layout). A run
with --agent NAME (run, chat) gets the agent's soul in its system prompt, its settings and its own
memory; deerflow serve offers the same agents to the home's local user (docs/agents.md).
  list                  name and description; --json prints every field
  show NAME             the agent's settings and soul as JSON
  create NAME           NAME: letters, digits and "-" (stored lower-cased)
  edit NAME             change what the flags give; the rest stays
  delete NAME           delete the agent with its soul, settings and memory
Settings:
  --soul TEXT, --soul-file FILE ("-": stdin)   the persona and standing instructions
  --description TEXT    one line saying what the agent does
  --model NAME          its model (a name from config.yaml); --model on run/chat still wins
  --temperature N, --max-tokens N               sampling settings over the model's
  --tool-groups LIST    comma-separated: file:read, file:write, bash, web (and tools: groups)
  --skills LIST         skills it may use ("" for none)
  --mcp-servers LIST    MCP servers whose tools it gets ("" for none)
  --subagents LIST      subagent kinds it may delegate to ("" for none)
  --clear SETTING       remove a setting (no restriction again), e.g. --clear tool_groups
`,
  users: `Usage: deerflow users [list] [--json] [--config PATH]
       deerflow users add NAME [--admin] [--password-stdin] [--config PATH]
       deerflow users token NAME [--name LABEL] [--config PATH]
       deerflow users revoke TOKEN-PREFIX [--config PATH]
       deerflow users remove NAME [--yes] [--config PATH]

Accounts of deerflow serve, kept in the thread database (the home's SQLite file, or Postgres with
database.backend postgres). Once a user exists, the server asks every request for a user's API token
(X-Api-Key or Authorization: Bearer) or a web sign-in; each user sees only their own threads.
A new token is shown once, alone on the last line of stdout: TOKEN=$(deerflow users add bob | tail -1).
  list                  users: role, how they sign in, created, and their API tokens' prefixes
                        (never the tokens); --json prints them as JSON
  add NAME              create a user (NAME: letters, digits and . _ @ + -, or an email address) and
                        print an API token for them
    --admin             may manage users, quotas, skills and MCP servers. The first admin inherits
                        the home's threads and memory from before accounts
    --password-stdin    read a password (at least 8 characters) from stdin to sign in on the web app:
                        the first line of a pipe, or typed twice at a terminal. Without it the user
                        has API tokens only
  token NAME            print a further API token for the user; --name LABEL names it in listings
  revoke TOKEN-PREFIX   revoke the tokens whose prefix (as list shows it, e.g. dfp_AbCd1234) starts
                        with TOKEN-PREFIX (at least 8 characters); exits 1 when none matched
  remove NAME           remove the user with their tokens and every thread they own (checkpoints,
                        runs, uploads, outputs). Asks to type the name on a terminal; --yes skips that
                        (needed when stdin is not a terminal). A thread with a run going is refused
`,
  cron: `Usage: deerflow cron [list] [--json] [--user NAME] [--config PATH]
       deerflow cron add --schedule "0 9 * * 1-5" [--timezone ZONE] [--thread ID] [--assistant ID]
                         [--catch-up none|latest|all] [--keep-threads] [--deliver-to CHANNEL:TARGET]
                         [--user NAME] "TASK"
       deerflow cron remove ID [--user NAME] [--config PATH]

Scheduled runs, kept in the thread database; deerflow serve fires them (docs/schedules.md).
  list                  crons: id, schedule, time zone, next run, last run and task; --json as JSON
  add "TASK"            send TASK as a new message on the schedule; prints the cron's id
    --schedule EXPR     five fields: minute hour day-of-month month day-of-week ("0 9 * * 1-5")
    --timezone ZONE     IANA time zone the schedule is read in (default UTC), e.g. Asia/Shanghai
    --thread ID         run on this thread each time (default: a new thread per run)
    --assistant ID      the agent to run (default lead_agent)
    --catch-up MODE     after downtime: none, latest (default) or all missed runs
    --keep-threads      keep each run's new thread (default: deleted once the run ends)
    --deliver-to C:T    post each run's answer to a chat: telegram:<chat id> or slack:<channel id>
                        (the channel must be configured under channels: in config.yaml)
  remove ID             delete the cron (runs it started stay)
  --user NAME           the account that owns the crons (default: the home's local user)
`,
  threads: `Usage: deerflow threads [--limit N] [--config PATH]
       deerflow threads delete ID [--config PATH]
       deerflow threads prune [--retention runs|latest|all] [--config PATH]
       deerflow threads export ID [--format md|json] [--out FILE] [--config PATH]

Lists saved threads, newest first: id, last update, message count and title (when there is one).
--limit N shows the N newest. Works on a read-only home.
delete removes a thread's checkpoints, compacted history and files ({home}/threads/ID); a thread
that a run holds is refused.
prune applies a checkpoint retention policy (default: checkpoints.retention from the config) to
every thread no run holds and vacuums the SQLite file (Postgres reuses the space itself); it
reports what it freed.
export prints the conversation (the user's questions and the answers, compacted history included)
as Markdown, or as JSON with --format json; --out FILE writes it to a file instead.
`,
};

/** The help of one command, or undefined when there is no such command. */
export function commandHelp(command: string): string | undefined {
  return COMMANDS[command];
}
