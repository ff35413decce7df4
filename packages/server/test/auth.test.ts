/**
 * Accounts as DeerFlow's frontend drives them (its sign-in sequence, read from its source: first-admin
 * setup, form sign-in through its Next proxy, the server-side `me` check with the cookie alone, the
 * CSRF header on writes, sign-out), and as the SDK drives them (API tokens); plus the upgrade of a
 * single-user home and server keys as admin keys.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { startTestServer, type TestServer } from "./helpers.js";

/** The headers DeerFlow's Next proxy adds: the browser's Origin, and the host the browser targeted. */
const PROXIED = { origin: "http://127.0.0.1:3000", "x-forwarded-host": "127.0.0.1:3000" };

/** A tiny cookie jar: what a browser would keep from Set-Cookie. */
class Jar {
  readonly cookies = new Map<string, string>();
  readonly attributes = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...rest] = line.split(";");
      const [name, ...value] = pair!.split("=");
      const text = value.join("=");
      this.attributes.set(name!.trim(), rest.join(";").trim());
      if (text === "" || /max-age=0/i.test(line)) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), text);
    }
  }
  header(only?: string[]): string {
    return [...this.cookies]
      .filter(([name]) => !only || only.includes(name))
      .map(([name, value]) => `${name}=${value}`)
      .join("; ");
  }
  get csrf(): string {
    return decodeURIComponent(this.cookies.get("csrf_token") ?? "");
  }
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

test("DeerFlow's frontend: setup, server-side me, CSRF on writes, sign-out, form sign-in, throttling", async (t) => {
  const s = await startTestServer({ yaml: "server: {auth: users}" });
  t.after(() => s.close());
  const jar = new Jar();
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${s.url}/api${path}`, {
      ...init,
      headers: { ...PROXIED, cookie: jar.header(), ...(init.headers as Record<string, string>) },
    });

  // The Next server checks setup-status with no cookies, then sends the person to /setup.
  assert.deepEqual(await json(await fetch(`${s.url}/api/v1/auth/setup-status`)), {
    needs_setup: true,
    registration_enabled: false,
    accounts: true,
  });
  // Accounts are on (server.auth: users): every route needs credentials, 401 with a detail.
  const closed = await fetch(`${s.url}/api/threads/search`, { method: "POST", body: "{}" });
  assert.equal(closed.status, 401);
  assert.match(String((await json(closed)).detail), /Sign in/);

  // Its setup page posts JSON without a CSRF token.
  const setup = await api("/v1/auth/initialize", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "admin@example.com", password: "Deer-Admin-Pass-1", remember_me: true }),
  });
  assert.equal(setup.status, 201);
  jar.take(setup);
  assert.match(jar.attributes.get("access_token")!, /HttpOnly/i);
  assert.match(jar.attributes.get("access_token")!, /SameSite=Lax/i);
  assert.doesNotMatch(jar.attributes.get("csrf_token")!, /HttpOnly/i);
  assert.match(jar.cookies.get("access_token")!, /^dfs_/);

  // The Next server's check: GET me with the access_token cookie only, nothing else.
  const me = await fetch(`${s.url}/api/v1/auth/me`, { headers: { cookie: jar.header(["access_token"]) } });
  assert.equal(me.status, 200);
  const user = await json(me);
  assert.equal(user.email, "admin@example.com");
  assert.equal(user.system_role, "admin");
  assert.equal(user.needs_setup, false);
  assert.equal(user.oauth_provider, null);
  assert.deepEqual(await json(await fetch(`${s.url}/api/v1/auth/setup-status`)), {
    needs_setup: false,
    registration_enabled: false,
    accounts: true,
  });

  // Writes with the cookie need the CSRF header (DeerFlow's details), reads do not.
  const noCsrf = await api("/threads", { method: "POST", body: "{}" });
  assert.equal(noCsrf.status, 403);
  assert.match(String((await json(noCsrf)).detail), /CSRF token missing/);
  const wrongCsrf = await api("/threads", { method: "POST", body: "{}", headers: { "x-csrf-token": "nope" } });
  assert.equal(wrongCsrf.status, 403);
  const created = await api("/threads", { method: "POST", body: "{}", headers: { "x-csrf-token": jar.csrf } });
  assert.equal(created.status, 200);
  const threadId = String((await json(created)).thread_id);
  assert.equal((await api(`/threads/${threadId}`)).status, 200);

  // A cross-site sign-in is refused (login CSRF); the proxy's own origin passes.
  const crossSite = await fetch(`${s.url}/api/v1/auth/login/local`, {
    method: "POST",
    headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
    body: "username=admin%40example.com&password=Deer-Admin-Pass-1&remember_me=true",
  });
  assert.equal(crossSite.status, 403);

  // Sign-out: no body, no CSRF header; the cookies go and the session is dead.
  const oldSession = jar.header(["access_token"]);
  const out = await api("/v1/auth/logout", { method: "POST" });
  assert.equal(out.status, 200);
  jar.take(out);
  assert.equal(jar.cookies.has("access_token"), false);
  assert.equal((await fetch(`${s.url}/api/v1/auth/me`, { headers: { cookie: oldSession } })).status, 401);

  // Its login form: urlencoded username/password/remember_me; unticked = cookies for this browser session only.
  const login = await api("/v1/auth/login/local", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      password: "Deer-Admin-Pass-1",
      remember_me: "false",
      username: "admin@example.com",
    }).toString(),
  });
  assert.equal(login.status, 200);
  jar.take(login);
  assert.doesNotMatch(jar.attributes.get("access_token")!, /Max-Age/i);
  assert.equal((await api(`/threads/${threadId}`)).status, 200);

  // Wrong passwords: 401, then the throttle answers 429 with Retry-After.
  const wrong = () =>
    fetch(`${s.url}/api/v1/auth/login/local`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=admin%40example.com&password=wrong-password&remember_me=true",
    });
  for (let attempt = 0; attempt < 5; attempt++) assert.equal((await wrong()).status, 401);
  const throttled = await wrong();
  assert.equal(throttled.status, 429);
  assert.ok(Number(throttled.headers.get("retry-after")) > 0);

  // Change password (a cookie write: CSRF header needed) ends other sessions and issues new cookies.
  const before = jar.header(["access_token"]);
  const changed = await api("/v1/auth/change-password", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": jar.csrf },
    body: JSON.stringify({ current_password: "Deer-Admin-Pass-1", new_password: "Deer-Admin-Pass-2" }),
  });
  assert.equal(changed.status, 200);
  jar.take(changed);
  assert.notEqual(jar.header(["access_token"]), before);
  assert.equal((await fetch(`${s.url}/api/v1/auth/me`, { headers: { cookie: before } })).status, 401);
  assert.equal((await api("/v1/auth/me")).status, 200);

  // Nothing secret reached the log.
  const log = s.logs.join("\n");
  for (const secret of ["Deer-Admin-Pass-1", "Deer-Admin-Pass-2", jar.cookies.get("access_token")!])
    assert.equal(log.includes(secret), false);
});

test("API tokens for the SDK; users see only their own threads; a plain name signs in as name@users.invalid", async (t) => {
  const s = await startTestServer({ yaml: "server: {auth: users}" });
  t.after(() => s.close());
  const admin = await s.server.context.users.create({ name: "root", admin: true });
  const { issueToken } = await import("../src/auth/accounts.js");
  const adminToken = (await issueToken(s.server.context.users, admin.id, "api")).token;
  const adminClient = new Client({ apiUrl: s.url, apiKey: adminToken });

  // The admin creates bob over the API: bob's first token comes back once.
  const made = await fetch(`${s.url}/v1/admin/users`, {
    method: "POST",
    headers: { "x-api-key": adminToken, "content-type": "application/json" },
    body: JSON.stringify({ name: "bob", password: "bob-password-1" }),
  });
  assert.equal(made.status, 201);
  const bob = await json(made);
  assert.match(String(bob.token), /^dfp_/);
  assert.equal(bob.email, "bob@users.invalid");
  const bobClient = new Client({ apiUrl: s.url, apiKey: String(bob.token) });

  const adminThread = await adminClient.threads.create({ metadata: { who: "admin" } });
  const bobThread = await bobClient.threads.create({ metadata: { who: "bob" } });
  assert.deepEqual(
    (await bobClient.threads.search({ limit: 50 })).map((thread) => thread.thread_id),
    [bobThread.thread_id],
  );
  assert.equal(await bobClient.threads.count({}), 1);
  await assert.rejects(bobClient.threads.get(adminThread.thread_id), /404/);
  // Creating over someone else's id reveals nothing but that it is taken.
  await assert.rejects(bobClient.threads.create({ threadId: adminThread.thread_id, ifExists: "do_nothing" }), /409/);
  assert.equal((await adminClient.threads.get(adminThread.thread_id)).metadata?.who, "admin");

  // Bob is no admin: the admin routes say so; the thread list of the admin shows no bob threads.
  const forbidden = await fetch(`${s.url}/v1/admin/users`, { headers: { "x-api-key": String(bob.token) } });
  assert.equal(forbidden.status, 403);
  assert.deepEqual(
    (await adminClient.threads.search({ limit: 50 })).map((thread) => thread.thread_id),
    [adminThread.thread_id],
  );

  // The email DeerFlow's frontend shows for bob signs him in.
  const login = await fetch(`${s.url}/api/v1/auth/login/local`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "username=bob%40users.invalid&password=bob-password-1&remember_me=true",
  });
  assert.equal(login.status, 200);

  // Tokens: create, list (prefix only), revoke → 401.
  const createdToken = await json(
    await fetch(`${s.url}/v1/auth/tokens`, {
      method: "POST",
      headers: { "x-api-key": String(bob.token), "content-type": "application/json" },
      body: JSON.stringify({ name: "laptop" }),
    }),
  );
  const listed = await json(await fetch(`${s.url}/v1/auth/tokens`, { headers: { "x-api-key": String(bob.token) } }));
  assert.equal(JSON.stringify(listed).includes(String(createdToken.token)), false);
  const revoked = await fetch(`${s.url}/v1/auth/tokens/${createdToken.id}`, {
    method: "DELETE",
    headers: { "x-api-key": String(bob.token) },
  });
  assert.equal(revoked.status, 204);
  const dead = await fetch(`${s.url}/threads/search`, {
    method: "POST",
    headers: { "x-api-key": String(createdToken.token) },
    body: "{}",
  });
  assert.equal(dead.status, 401);
});

test("upgrade: a single-user home's threads become the first admin's; server keys act as that admin", async (t) => {
  const key = "k".repeat(24);
  let s: TestServer = await startTestServer({ apiKey: key, apiKeys: [key] });
  t.after(() => s.close());
  const before = await s.client.threads.create({ metadata: { made: "before accounts" } });

  // With server keys, setup over HTTP is refused: the CLI (or a key) makes the first admin.
  const refused = await fetch(`${s.url}/api/v1/auth/initialize`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "admin@example.com", password: "long-enough-1" }),
  });
  assert.equal(refused.status, 403);

  s = await s.restart();
  const { addUser, issueToken } = await import("../src/auth/accounts.js");
  const users = s.server.context.users;
  const alice = await addUser(users, { name: "alice@example.com", admin: true });
  const carol = await addUser(users, { name: "carol@example.com" });
  const alicesKey = (await issueToken(users, alice.id, "api")).token;
  const carolsKey = (await issueToken(users, carol.id, "api")).token;

  const alicesThreads = await new Client({ apiUrl: s.url, apiKey: alicesKey }).threads.search();
  assert.deepEqual(
    alicesThreads.map((thread) => thread.thread_id),
    [before.thread_id],
  );
  assert.deepEqual(await new Client({ apiUrl: s.url, apiKey: carolsKey }).threads.search(), []);
  // The server key still works, as the first admin (it sees her threads, not carol's).
  assert.deepEqual(
    (await s.client.threads.search()).map((thread) => thread.thread_id),
    [before.thread_id],
  );
  // Without any credentials: 401.
  assert.equal((await fetch(`${s.url}/threads/search`, { method: "POST", body: "{}" })).status, 401);
});

test("memory is per user: facts reach only their owner's prompts and /api/memory; the home's memory becomes the first admin's", async (t) => {
  const s = await startTestServer({ yaml: "memory: {enabled: true, injection_enabled: true}" });
  t.after(() => s.close());
  const { addUser, issueToken } = await import("../src/auth/accounts.js");
  // Before accounts: the local user remembers something.
  const local = await fetch(`${s.url}/api/memory/facts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content: "Prefers answers in haiku", category: "preference", confidence: 0.9 }),
  });
  assert.equal(local.status, 200);

  const users = s.server.context.users;
  const admin = await addUser(
    users,
    { name: "admin@example.com", admin: true },
    {
      onFirstAdmin: (user) => s.server.context.onFirstAdmin(user),
    },
  );
  s.server.context.auth.refresh();
  const bob = await addUser(users, { name: "bob@example.com" });
  const adminKey = (await issueToken(users, admin.id, "api")).token;
  const bobKey = (await issueToken(users, bob.id, "api")).token;
  const facts = async (key: string) =>
    (
      (await (await fetch(`${s.url}/api/memory`, { headers: { "x-api-key": key } })).json()) as {
        facts: Array<{ content: string }>;
      }
    ).facts.map((fact) => fact.content);

  assert.deepEqual(await facts(adminKey), ["Prefers answers in haiku"]);
  assert.deepEqual(await facts(bobKey), []);
  const added = await fetch(`${s.url}/api/memory/facts`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": bobKey },
    body: JSON.stringify({ content: "Works on the billing service", category: "context", confidence: 0.9 }),
  });
  assert.equal(added.status, 200);
  assert.deepEqual(await facts(bobKey), ["Works on the billing service"]);
  assert.deepEqual(await facts(adminKey), ["Prefers answers in haiku"]);

  // Each run's prompt carries its starter's memory only.
  const prompt = async (key: string) => {
    const client = new Client({ apiUrl: s.url, apiKey: key });
    const thread = await client.threads.create();
    const before = s.fake.requests.length;
    await client.runs.wait(thread.thread_id, "lead_agent", { input: { messages: [{ role: "user", content: "hi" }] } });
    return JSON.stringify(s.fake.requests.slice(before).map((request) => request.messages));
  };
  const bobsPrompt = await prompt(bobKey);
  assert.match(bobsPrompt, /billing service/);
  assert.doesNotMatch(bobsPrompt, /haiku/);
  const adminsPrompt = await prompt(adminKey);
  assert.match(adminsPrompt, /haiku/);
  assert.doesNotMatch(adminsPrompt, /billing service/);

  // Removing bob removes his memory with his threads.
  const bobsMemory = path.join(s.home.path, "users", bob.id);
  assert.equal(existsSync(bobsMemory), true);
  const removed = await fetch(`${s.url}/v1/admin/users/${bob.id}`, {
    method: "DELETE",
    headers: { "x-api-key": adminKey },
  });
  assert.equal(removed.status, 204);
  assert.equal(existsSync(bobsMemory), false);
  assert.deepEqual(await facts(adminKey), ["Prefers answers in haiku"]);
});

test("an upload before the thread exists reserves its id for the uploader; the uploader then creates the thread as usual", async (t) => {
  const s = await startTestServer({ yaml: "server: {auth: users}" });
  t.after(() => s.close());
  const { addUser, issueToken } = await import("../src/auth/accounts.js");
  const users = s.server.context.users;
  const ann = (await issueToken(users, (await addUser(users, { name: "ann@example.com", admin: true })).id, "api"))
    .token;
  const bob = (await issueToken(users, (await addUser(users, { name: "bob@example.com" })).id, "api")).token;
  const threadId = "7d0c7c3e-9a55-4a53-9d55-5b8d2a6f0a11";
  const upload = (key: string) => {
    const form = new FormData();
    form.append("files", new Blob(["hello"]), "note.txt");
    return fetch(`${s.url}/api/threads/${threadId}/uploads`, {
      method: "POST",
      body: form,
      headers: { "x-api-key": key },
    });
  };
  assert.equal((await upload(ann)).status, 200);
  // Someone else: the reserved id looks missing or taken, never readable.
  assert.equal((await upload(bob)).status, 404);
  const bobList = await fetch(`${s.url}/api/threads/${threadId}/uploads/list`, { headers: { "x-api-key": bob } });
  assert.equal(bobList.status, 404);
  await assert.rejects(new Client({ apiUrl: s.url, apiKey: bob }).threads.create({ threadId }), /409/);
  // The uploader's client creates the thread next (SDK default if_exists: raise), and sees the file.
  const created = await new Client({ apiUrl: s.url, apiKey: ann }).threads.create({ threadId });
  assert.equal(created.thread_id, threadId);
  const list = (await (
    await fetch(`${s.url}/api/threads/${threadId}/uploads/list`, { headers: { "x-api-key": ann } })
  ).json()) as { count: number };
  assert.equal(list.count, 1);
});
