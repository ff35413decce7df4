/**
 * A real OpenID Provider for tests: `oidc-provider` on 127.0.0.1 with an OS-chosen port, so our relying
 * party is exercised against a certified implementation (discovery, JWKS, PKCE, client authentication,
 * userinfo) instead of a fake that only agrees with us. Its sign-in pages are replaced by a minimal,
 * quiet interaction handler that `signIn` drives with plain `fetch` calls, as a browser would: manual
 * redirects, the provider's cookies carried by hand, one form post per prompt.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { type Adapter, type AdapterPayload, type ClientAuthMethod, type Configuration } from "oidc-provider";

/** A client registered at the test issuer. */
export interface OidcIssuerClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/** A person who can sign in at the test issuer. */
export interface OidcIssuerAccount {
  sub: string;
  email: string;
  email_verified?: boolean;
  name?: string;
}

/** Options of `startOidcIssuer`. */
export interface OidcIssuerOptions {
  clients: OidcIssuerClient[];
  accounts: OidcIssuerAccount[];
  /**
   * Put scope claims (email, name) in the id_token as well. Off by default, as in oidc-provider itself:
   * the id_token then carries only `sub`, and the relying party must ask the userinfo endpoint.
   */
  claimsInIdToken?: boolean;
  /** Client authentication methods advertised and accepted at the token endpoint (default: basic and post). */
  tokenEndpointAuthMethods?: ClientAuthMethod[];
}

/** Cookies by name, as a browser keeps them for the issuer's origin. */
export type CookieJar = Map<string, string>;

/** A running test issuer. */
export interface OidcIssuer {
  /** The issuer identifier, e.g. `http://127.0.0.1:40123`. */
  issuer: string;
  /**
   * Follows `authorizationUrl` through the provider, signs in as `sub` and consents, and returns the
   * redirect to the client's `redirect_uri` (with `code`, `state`, `iss`) without fetching it. Pass the
   * same `cookieJar` to a second call to reuse the provider session, as a returning browser would.
   */
  signIn(authorizationUrl: string, sub: string, cookieJar?: CookieJar): Promise<string>;
  /** Like `signIn`, but the person cancels at the first prompt: the redirect carries `error=access_denied`. */
  deny(authorizationUrl: string, cookieJar?: CookieJar): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts oidc-provider with the given clients and accounts.
 *
 * @example
 * const idp = await startOidcIssuer({
 *   clients: [{ client_id: "deerflow", client_secret: "s3cret", redirect_uris: ["http://127.0.0.1:9/cb"] }],
 *   accounts: [{ sub: "alice", email: "alice@example.com", email_verified: true, name: "Alice" }],
 * });
 * const callback = await idp.signIn(authorizationUrl, "alice"); // "http://127.0.0.1:9/cb?code=...&state=..."
 */
export async function startOidcIssuer(options: OidcIssuerOptions): Promise<OidcIssuer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, await configuration(options));
  const handleProvider = provider.callback();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/interaction\/([^/?]+)(?:\/(login|consent|abort))?(?:\?.*)?$/.exec(req.url ?? "");
    if (!match) return void handleProvider(req, res);
    interact(provider, req, res, match[2]).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(error instanceof Error ? error.message : String(error));
    });
  });

  const drive = (url: string, action: (prompt: string) => Record<string, string>, jar: CookieJar) =>
    followToClient(issuer, url, action, jar);
  return {
    issuer,
    signIn: (url, sub, jar = new Map()) =>
      drive(url, (prompt) => (prompt === "login" ? { sub } : {}) as Record<string, string>, jar),
    deny: (url, jar = new Map()) => drive(url, () => ({ abort: "1" }), jar),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function configuration(options: OidcIssuerOptions): Promise<Configuration> {
  const accounts = new Map(options.accounts.map((account) => [account.sub, account]));
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: "test-rs256", alg: "RS256", use: "sig" };
  return {
    clients: options.clients.map((client) => ({
      ...client,
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: options.tokenEndpointAuthMethods?.[0] ?? "client_secret_basic",
    })),
    clientAuthMethods: options.tokenEndpointAuthMethods ?? ["client_secret_basic", "client_secret_post"],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: !options.claimsInIdToken,
    cookies: { keys: ["test-only-cookie-key"] },
    // Explicit lifetimes and an explicit in-memory store keep the provider's startup notices quiet.
    ttl: { AccessToken: 3600, AuthorizationCode: 600, IdToken: 3600, Interaction: 3600, Session: 3600, Grant: 3600 },
    adapter: memoryAdapter(),
    jwks: { keys: [signingKey] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        async claims() {
          const { sub: _, ...claims } = account;
          return { sub, ...claims };
        },
      };
    },
  };
}

/**
 * The sign-in pages. `GET /interaction/:uid` shows which prompt is pending (`data-prompt`); the form
 * posts to `/interaction/:uid/login` (field `sub`) or `/interaction/:uid/consent` (grants everything
 * asked); `/interaction/:uid/abort` cancels with `access_denied`.
 */
async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse, step: string | undefined) {
  const details = await provider.interactionDetails(req, res);
  if (step === undefined) {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<form method="post" data-prompt="${details.prompt.name}"></form>`);
    return;
  }
  if (step === "abort") {
    const result = { error: "access_denied", error_description: "The person cancelled the sign-in." };
    return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }
  if (step === "login") {
    const sub = new URLSearchParams(await readBody(req)).get("sub") ?? "";
    return provider.interactionFinished(req, res, { login: { accountId: sub } }, { mergeWithLastSubmission: false });
  }
  const accountId = details.session?.accountId;
  const clientId = String(details.params.client_id);
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId });
  if (!grant) throw new Error(`grant ${details.grantId} vanished`);
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  const result = { consent: { grantId: await grant.save() } };
  return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
}

/**
 * oidc-provider's storage interface over one Map per model, private to one issuer (the provider's own
 * in-memory default is shared by the whole process and warns on every start).
 */
function memoryAdapter(): (model: string) => Adapter {
  const stores = new Map<string, Map<string, AdapterPayload>>();
  return (model) => {
    const store = stores.get(model) ?? new Map<string, AdapterPayload>();
    stores.set(model, store);
    const findBy = (key: "uid" | "userCode", value: string) =>
      [...store.values()].find((payload) => payload[key] === value);
    return {
      upsert: async (id, payload) => void store.set(id, payload),
      find: async (id) => store.get(id),
      findByUid: async (uid) => findBy("uid", uid),
      findByUserCode: async (userCode) => findBy("userCode", userCode),
      consume: async (id) => {
        const payload = store.get(id);
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => void store.delete(id),
      revokeByGrantId: async (grantId) => {
        for (const [id, payload] of store) if (payload.grantId === grantId) store.delete(id);
      },
    };
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The browser: follows redirects by hand while they stay on the issuer, answers each interaction page
 * with `action(prompt)` (an `abort` field means "cancel"), and returns the first redirect that leaves
 * the issuer, which is the one to the client's redirect_uri.
 */
async function followToClient(
  issuer: string,
  start: string,
  action: (prompt: string) => Record<string, string>,
  jar: CookieJar,
): Promise<string> {
  let request: { url: string; method: "GET" | "POST"; form?: Record<string, string> } = { url: start, method: "GET" };
  for (let hop = 0; hop < 20; hop++) {
    if (!request.url.startsWith(`${issuer}/`)) return request.url;
    const response = await fetch(request.url, {
      method: request.method,
      redirect: "manual",
      headers: {
        ...(jar.size > 0 && { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") }),
        ...(request.form && { "content-type": "application/x-www-form-urlencoded" }),
      },
      body: request.form ? new URLSearchParams(request.form).toString() : undefined,
    });
    keepCookies(jar, response);
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      request = { url: new URL(location, request.url).href, method: "GET" };
      continue;
    }
    const page = await response.text();
    const prompt = /data-prompt="([a-z]+)"/.exec(page)?.[1];
    if (response.status !== 200 || !prompt) {
      throw new Error(`test issuer: unexpected ${response.status} at ${request.url}: ${page.slice(0, 300)}`);
    }
    const form = action(prompt);
    const base = request.url.replace(/[?#].*$/, "");
    request = form.abort ? { url: `${base}/abort`, method: "GET" } : { url: `${base}/${prompt}`, method: "POST", form };
  }
  throw new Error(`test issuer: more than 20 redirects from ${start}`);
}

function keepCookies(jar: CookieJar, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair = "", ...attributes] = line.split(";");
    const split = pair.indexOf("=");
    const name = pair.slice(0, split).trim();
    const value = pair.slice(split + 1).trim();
    const expired = attributes.some((attribute) => {
      const [key = "", val = ""] = attribute.trim().split("=");
      return (
        (key.toLowerCase() === "max-age" && Number(val) <= 0) ||
        (key.toLowerCase() === "expires" && Date.parse(val) < Date.now())
      );
    });
    if (expired || value === "") jar.delete(name);
    else jar.set(name, value);
  }
}
