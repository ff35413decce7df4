/**
 * OIDC sign-in through the server's routes against a real provider (oidc-provider, started here): the
 * start route sends the browser to the provider, the callback signs the person in with the session
 * cookies, the user is created on first sign-in and found again on the next, and a forged callback
 * signs no one in.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestServer } from "./helpers.js";
import { startOidcIssuer } from "./support/oidc-issuer.js";

const PUBLIC = "http://deerflow.test";
const REDIRECT = `${PUBLIC}/api/v1/auth/callback/oidc`;
const SECRET = "oidc-client-secret-for-tests";

test("OIDC: first sign-in creates the user, the next finds them; each sees only their threads; a forged callback fails", async (t) => {
  const idp = await startOidcIssuer({
    clients: [{ client_id: "deerflow", client_secret: SECRET, redirect_uris: [REDIRECT] }],
    accounts: [
      { sub: "alice-sub", email: "alice@example.com", email_verified: true, name: "Alice" },
      { sub: "bob-sub", email: "bob@example.com", email_verified: true, name: "Bob" },
    ],
  });
  t.after(() => idp.close());
  const s = await startTestServer({
    yaml: `server: {auth: users}\nauth: {public_url: '${PUBLIC}', oidc: {issuer: '${idp.issuer}', client_id: deerflow, client_secret: ${SECRET}, display_name: Company SSO}}`,
  });
  t.after(() => s.close());

  const providers = (await (await fetch(`${s.url}/api/v1/auth/providers`)).json()) as { providers: unknown[] };
  assert.deepEqual(providers.providers, [
    { id: "oidc", name: "Company SSO", display_name: "Company SSO", type: "oidc" },
  ]);

  /** A browser's round trip: start → provider → our callback; returns the session cookie header. */
  const signIn = async (sub: string) => {
    const start = await fetch(`${s.url}/api/v1/auth/oauth/oidc?next=/threads`, { redirect: "manual" });
    assert.equal(start.status, 302);
    const pending = start.headers.getSetCookie().find((line) => line.startsWith("df_oidc="))!;
    const back = new URL(await idp.signIn(start.headers.get("location")!, sub));
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    const callback = await fetch(`${s.url}/api/v1/auth/callback/oidc${back.search}`, {
      redirect: "manual",
      headers: { cookie: pending.split(";")[0]! },
    });
    assert.equal(callback.status, 302);
    assert.equal(callback.headers.get("location"), "/threads");
    const session = callback.headers.getSetCookie().find((line) => line.startsWith("access_token="))!;
    return session.split(";")[0]!;
  };

  const alice = await signIn("alice-sub");
  const me = (await (await fetch(`${s.url}/api/v1/auth/me`, { headers: { cookie: alice } })).json()) as Record<
    string,
    unknown
  >;
  assert.equal(me.email, "alice@example.com");
  assert.equal(me.oauth_provider, "oidc");
  assert.equal(me.system_role, "user");
  const again = await signIn("alice-sub");
  const meAgain = (await (await fetch(`${s.url}/api/v1/auth/me`, { headers: { cookie: again } })).json()) as Record<
    string,
    unknown
  >;
  assert.equal(meAgain.id, me.id);
  assert.equal(await s.server.context.users.count(), 1);

  const bob = await signIn("bob-sub");
  assert.equal(await s.server.context.users.count(), 2);
  await s.server.context.threads.create("t-alice", {}, "raise", String(me.id));
  const read = async (cookie: string) => (await fetch(`${s.url}/threads/t-alice`, { headers: { cookie } })).status;
  assert.equal(await read(alice), 200);
  assert.equal(await read(bob), 404);

  // A callback without the pending sign-in (or with a made-up state) signs no one in.
  const forged = await fetch(`${s.url}/api/v1/auth/callback/oidc?code=abc&state=def`, { redirect: "manual" });
  assert.equal(forged.status, 400);
  assert.match(((await forged.json()) as { detail: string }).detail, /sign-in/i);
  assert.equal(
    forged.headers.getSetCookie().some((line) => line.startsWith("access_token=") && !/Max-Age=0/.test(line)),
    false,
  );
  // The client secret never reaches the log.
  assert.equal(s.logs.join("\n").includes(SECRET), false);
});
