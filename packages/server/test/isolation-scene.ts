/**
 * The scene of the isolation matrix: a real server with three accounts (an admin, A and B), where A
 * owns a finished run with events, an upload, an artifact the agent wrote and presented, a stateless
 * run whose temporary thread is gone, threads named `search` and `count`, a session, and a run held
 * in flight by the fake model. B owns a thread of its own. Every request B makes is recorded (method,
 * path, status), so the route-enumeration test can tell which registered routes the matrix reached.
 */
import fs from "node:fs";
import path from "node:path";
import { addUser, issueToken } from "../src/auth/accounts.js";
import { Client } from "@langchain/langgraph-sdk";
import { collect, gate, startTestServer, type TestServer, until } from "./helpers.js";

/** Every stream mode the server produces for a run (what join can filter on). */
export const STREAM_MODES = [
  "values",
  "messages-tuple",
  "updates",
  "events",
  "debug",
  "custom",
  "tasks",
  "checkpoints",
] as const;

/** A's agent's soul and A's profile: they must never reach B. */
export const A_SOUL = "alpha soul: the private persona of user A";
export const A_PROFILE = "alpha profile: A's private background";

/** What only A wrote: it must never reach B. */
export const A_UPLOAD = "alpha upload: quarterly numbers nobody else may read\n";
export const A_REPORT = "# Alpha report\nPrivate findings of user A.\n";
const REPORT_PATH = "/mnt/user-data/outputs/report.md";

/** One request B made. */
export interface Recorded {
  method: string;
  /** Path without the `/api` mount. */
  path: string;
  status: number;
}

/** A signed-up user of the scene. */
export interface SceneUser {
  id: string;
  name: string;
  password: string;
  token: string;
  client: Client;
  /** fetch against `/api` with the user's token. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Ids of A's things, the targets of B's attempts. */
export interface AIds {
  thread: string;
  finishedRun: string;
  heldRun: string;
  checkpoint: string;
  humanMessage: string;
  aiMessage: string;
  /** The temporary thread of A's finished stateless run (deleted with it). */
  tempThread: string;
  /** A thread directory holding A's report with no record (what stateless runs left before the fix). */
  leftoverThread: string;
  /** A thread the CLI wrote (checkpoints, no record) while the server runs; it belongs to the admin. */
  cliThread: string;
  tempRun: string;
  apiTokenId: string;
  /** A's cron on A's thread. */
  cron: string;
  /** A's scheduled task (DeerFlow's routes) on A's thread. */
  task: string;
  /** A's custom agent (its name) and its assistant id. */
  agent: string;
  agentAssistant: string;
  /** A's thumbs up on the finished run. */
  feedback: string;
}

/** The scene, ready for B's attempts. */
export interface Scene {
  t: TestServer;
  root: SceneUser;
  a: SceneUser;
  b: SceneUser;
  ids: AIds;
  /** B's own thread. */
  bThread: string;
  /** Requests B made (the matrix's coverage). */
  recorded: Recorded[];
  /** Every secret the flow produced: tokens (API and session) and passwords. */
  secrets: Map<string, string>;
  /** Lets A's held run answer. */
  release(): void;
}

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });

/** Messages after the last user message of a chat-completions request. */
function sinceUser(body: { messages: Array<{ role: string; content?: unknown }> }) {
  const at = body.messages.map((message) => message.role).lastIndexOf("user");
  const user = body.messages[at];
  const text = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
  return { text, tools: body.messages.slice(at + 1).filter((message) => message.role === "tool").length };
}

/** The fake model: "write the report" writes and presents a file, "hold on" waits for `held`, else it echoes. */
function script(held: Promise<void>) {
  return async (body: { messages: Array<{ role: string; content?: unknown }> }) => {
    const { text, tools } = sinceUser(body);
    if (text.includes("write the report")) {
      if (tools === 0)
        return {
          tool_calls: [
            { name: "write_file", arguments: { description: "report", path: REPORT_PATH, content: A_REPORT } },
          ],
        };
      if (tools === 1) return { tool_calls: [{ name: "present_files", arguments: { filepaths: [REPORT_PATH] } }] };
      return { content: "The report is in outputs." };
    }
    if (text.includes("hold on")) await held;
    return { content: `echo: ${text.slice(0, 40)}` };
  };
}

function jsonInit(body: unknown, method = "POST"): RequestInit {
  return { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** An upload body with one file. */
export function uploadForm(name: string, content: string): FormData {
  const form = new FormData();
  form.append("files", new Blob([content]), name);
  return form;
}

/** Builds the scene on a fresh server; `yaml` selects the database. */
export async function startScene(yaml = ""): Promise<Scene> {
  const hold = gate();
  // MCP writes on, so B's 403 on PUT /mcp/config comes from the admin check, not from writes being off.
  const t = await startTestServer({ script: script(hold.wait), yaml: `server: {mcp_config_writes: true}\n${yaml}` });
  const recorded: Recorded[] = [];
  const secrets = new Map<string, string>();
  const users = t.server.context.users;

  const signUp = async (name: string, admin: boolean, record = false): Promise<SceneUser> => {
    const password = `${name}-password-${Math.random().toString(36).slice(2, 10)}`;
    const user = await addUser(users, { name, password, admin });
    const { token } = await issueToken(users, user.id, "api", { name: "matrix" });
    secrets.set(`${name}'s password`, password);
    secrets.set(`${name}'s API token`, token);
    const send: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (record) {
        const url = new URL(input instanceof Request ? input.url : String(input));
        const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
        recorded.push({ method, path: url.pathname.replace(/^\/api(?=\/)/, ""), status: response.status });
      }
      return response;
    };
    return {
      id: user.id,
      name,
      password,
      token,
      client: new Client({ apiUrl: t.url, apiKey: token, callerOptions: { fetch: send, maxRetries: 0 } }),
      fetch: (path, init = {}) =>
        send(`${t.url}/api${path}`, { ...init, headers: { "x-api-key": token, ...(init.headers ?? {}) } }),
    };
  };
  const root = await signUp("root", true);
  const a = await signUp("alice", false);
  const b = await signUp("bob", false, true);
  t.server.context.auth.refresh();

  // A: a thread with metadata, an upload, a finished run in every stream mode that writes and presents a file.
  const thread = (await a.client.threads.create({ metadata: { project: "alpha-secret" } })).thread_id;
  const uploaded = await a.fetch(`/threads/${thread}/uploads`, {
    method: "POST",
    body: uploadForm("notes.txt", A_UPLOAD),
  });
  if (!uploaded.ok) throw new Error(`A's upload failed: ${uploaded.status} ${await uploaded.text()}`);
  const parts = await collect(
    a.client.runs.stream(thread, "lead_agent", { input: say("write the report"), streamMode: [...STREAM_MODES] }),
  );
  const finishedRun = (parts.find((part) => part.event === "metadata")!.data as { run_id: string }).run_id;
  const state = await a.client.threads.getState<{ messages: Array<{ id: string; type: string }> }>(thread);
  const messages = state.values.messages;

  // A: a thumbs up on the finished run, and an item in the LangGraph store.
  const feedback = (await (
    await a.fetch(`/threads/${thread}/runs/${finishedRun}/feedback`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rating: 1, comment: "alpha-secret praise" }),
    })
  ).json()) as { feedback_id: string };
  await a.client.store.putItem(["notes", "alpha"], "plan", { text: "alpha-secret plan" });

  // A: threads whose ids are also route names, each with an upload.
  for (const id of ["search", "count"]) {
    await a.client.threads.create({ threadId: id });
    const response = await a.fetch(`/threads/${id}/uploads`, {
      method: "POST",
      body: uploadForm(`${id}.txt`, A_UPLOAD),
    });
    if (!response.ok) throw new Error(`A's upload to ${id} failed: ${response.status}`);
  }

  // A: a stateless run (temporary thread, deleted when it ends) whose agent wrote a file.
  const temp = await a.client.runs.create(null, "lead_agent", { input: say("write the report") });
  await (await a.fetch(`/runs/${temp.run_id}/join`)).text();

  // Files with no record: a temporary thread's directory as older versions left it behind.
  const leftoverThread = "0190f000-1111-7000-8000-00000000cafe";
  const leftover = path.join(t.home.path, "threads", leftoverThread, "user-data", "outputs");
  fs.mkdirSync(leftover, { recursive: true });
  fs.writeFileSync(path.join(leftover, "report.md"), A_REPORT);

  // The CLI runs a thread on the same home while the server is up: checkpoints, no server record.
  const cliThread = "cli-notes";
  await t.harness.agent().graph.invoke(say("cli notes"), { configurable: { thread_id: cliThread } });

  // A: a session (web sign-in) and an API token made over HTTP.
  const login = await fetch(`${t.url}/api/v1/auth/login/local`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: a.name, password: a.password }),
  });
  const session = /access_token=([^;]+)/.exec(login.headers.get("set-cookie") ?? "")?.[1];
  if (!session) throw new Error(`A's sign-in failed: ${login.status}`);
  secrets.set("alice's session token", session);
  const made = (await (
    await a.fetch("/v1/auth/tokens", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "second" }),
    })
  ).json()) as { id: string; token: string };
  secrets.set("alice's second API token", made.token);

  // The admin creates a user over the admin API (its token and password are secrets too).
  const carol = (await (
    await root.fetch("/v1/admin/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "carol", password: "carol-password-xyz" }),
    })
  ).json()) as { token: string };
  secrets.set("carol's password", "carol-password-xyz");
  secrets.set("carol's API token", carol.token);

  // B: a thread of its own with one run.
  const bThread = (await b.client.threads.create({ metadata: { project: "bravo" } })).thread_id;
  await b.client.runs.wait(bThread, "lead_agent", { input: say("bravo here") });

  // A: a run held in flight (its model call waits), for B's cancel attempts.
  const held = await a.client.runs.create(thread, "lead_agent", { input: say("hold on") });
  await until(
    () => t.fake.requests.some((body) => sinceUser(body).text.includes("hold on")),
    10_000,
    "A's held model call",
  );
  // Checkpoints can land after the model call began (async durability): wait for the one before it.
  await until(
    async () => (await a.client.threads.getState(thread)).next.includes("model_request"),
    10_000,
    "A's held run to checkpoint up to its model call",
  );

  // A: a cron on A's thread (due on 1 January only, so it does not fire during the matrix).
  const cron = await a.client.crons.createForThread(thread, "lead_agent", {
    schedule: "0 9 1 1 *",
    input: say("alpha cron"),
  });
  const task = (await (
    await a.fetch("/scheduled-tasks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        context_mode: "reuse_thread",
        thread_id: thread,
        title: "alpha task",
        prompt: "alpha prompt",
        schedule_type: "cron",
        schedule_spec: { cron: "0 9 1 1 *" },
        timezone: "UTC",
      }),
    })
  ).json()) as { id: string };

  // A: a custom agent with a soul, run once, and a user profile.
  const agentMade = await a.fetch(
    "/agents",
    jsonInit({ name: "secret-agent", description: "alpha agent", soul: A_SOUL, tool_groups: ["file:read"] }),
  );
  if (agentMade.status !== 201) throw new Error(`A's agent failed: ${agentMade.status} ${await agentMade.text()}`);
  const agentAssistant = (await a.client.assistants.get("secret-agent")).assistant_id;
  await a.fetch("/user-profile", jsonInit({ content: A_PROFILE }, "PUT"));

  recorded.length = 0; // the matrix starts here: B's set-up is not coverage
  return {
    t,
    root,
    a,
    b,
    ids: {
      thread,
      finishedRun,
      heldRun: held.run_id,
      checkpoint: state.checkpoint.checkpoint_id!,
      humanMessage: messages.find((message) => message.type === "human")!.id,
      aiMessage: messages.findLast((message) => message.type === "ai")!.id,
      tempThread: temp.thread_id,
      tempRun: temp.run_id,
      leftoverThread,
      cliThread,
      apiTokenId: made.id,
      cron: cron.cron_id,
      task: task.id,
      agent: "secret-agent",
      agentAssistant,
      feedback: feedback.feedback_id,
    },
    bThread,
    recorded,
    secrets,
    release: hold.open,
  };
}
