/**
 * Sign-in through the organisation's OpenID Connect provider (Keycloak, Authentik, Entra ID, Google,
 * ...), so people use the account they already have and this server never sees a password. A small
 * relying party: authorization code flow with PKCE (S256), `state` and `nonce`, a confidential client
 * (client_secret_basic or client_secret_post, as discovery offers), ID tokens verified against the
 * provider's JWKS with `jose`. It returns who signed in; mapping that to a local user and a session is
 * the caller's business.
 *
 * `openid-client` (v6, which supports Node 20) would also work, but it is not simpler here: its errors
 * would each need translating into a message that says what to do and provably carries no secret, and
 * the flow itself is three requests around `jose`'s `jwtVerify`, which checks key, signature and claims.
 */
import { createHash } from "node:crypto";
import { createRemoteJWKSet, customFetch, type JWTPayload, jwtVerify } from "jose";
import { discover, type ProviderMetadata } from "./oidc-discovery.js";
import { OidcError, providerText } from "./oidc-error.js";
import { callProvider, readJson } from "./oidc-http.js";
import { newTransaction, OIDC_TRANSACTION_MAX_AGE_SECONDS, type OidcTransaction } from "./oidc-transaction.js";

export { OidcError, type OidcErrorCode } from "./oidc-error.js";
export {
  OIDC_TRANSACTION_MAX_AGE_SECONDS,
  type OidcTransaction,
  parseTransaction,
  serializeTransaction,
} from "./oidc-transaction.js";

/** The provider and this server's client registration there (`auth.oidc` plus the callback URL). */
export interface OidcSettings {
  /** The issuer URL, e.g. `https://id.example.com/realms/main`; https unless the host is loopback. */
  issuer: string;
  client_id: string;
  client_secret: string;
  /** The callback registered at the provider: `{public_url}/api/v1/auth/callback/oidc`. */
  redirect_uri: string;
  /** Scopes to ask for; default `openid email profile`. `openid` is added when missing. */
  scopes?: string[];
}

/** Who signed in, as the provider says. `issuer` + `subject` is the stable key; email may change. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** One provider's sign-in: `begin` when the person clicks "Sign in", `finish` at the callback. */
export interface OidcClient {
  /**
   * Discovers the provider (once; a failure is retried on the next call) and returns the authorization
   * URL to redirect the browser to, and the transaction to keep until the callback (see
   * `serializeTransaction`).
   */
  begin(): Promise<{ url: string; transaction: OidcTransaction }>;
  /**
   * Checks the callback's query against the transaction (present, at most 10 minutes old, same `state`,
   * no `error`, a `code`, the right `iss` when sent), exchanges the code, verifies the ID token
   * (signature against the JWKS, `iss`, `aud`, `azp`, `exp`, `nonce`) and returns the identity. Email
   * and name come from the ID token, else from the userinfo endpoint. Every failure is an `OidcError`.
   */
  finish(query: URLSearchParams, transaction: OidcTransaction | null | undefined): Promise<OidcIdentity>;
}

/**
 * A client for one provider. Settings are checked here (`OidcError` "config_invalid"); the provider is
 * contacted only by `begin` and `finish`.
 *
 * @example
 * const oidc = createOidcClient({ issuer, client_id, client_secret, redirect_uri: `${publicUrl}/api/v1/auth/callback/oidc` });
 * // GET /api/v1/auth/login/oidc
 * const { url, transaction } = await oidc.begin(); // set-cookie serializeTransaction(transaction), redirect to url
 * // GET /api/v1/auth/callback/oidc
 * const who = await oidc.finish(new URL(c.req.url).searchParams, parseTransaction(cookie));
 */
export function createOidcClient(settings: OidcSettings, options: { fetch?: typeof fetch } = {}): OidcClient {
  checkSettings(settings);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const scope = [...new Set(["openid", ...(settings.scopes ?? ["email", "profile"])])].join(" ");
  let provider: Promise<ProviderMetadata & { jwks: ReturnType<typeof createRemoteJWKSet> }> | undefined;

  const discovered = () => {
    provider ??= discover(settings.issuer, fetchImpl).then(
      (metadata) => ({
        ...metadata,
        jwks: createRemoteJWKSet(new URL(metadata.jwks_uri), { [customFetch]: fetchImpl }),
      }),
      (error: unknown) => {
        provider = undefined;
        throw error;
      },
    );
    return provider;
  };

  return {
    async begin() {
      const { authorization_endpoint } = await discovered();
      const transaction = newTransaction();
      const url = new URL(authorization_endpoint);
      const params = {
        response_type: "code",
        client_id: settings.client_id,
        redirect_uri: settings.redirect_uri,
        scope,
        state: transaction.state,
        nonce: transaction.nonce,
        code_challenge: createHash("sha256").update(transaction.code_verifier).digest("base64url"),
        code_challenge_method: "S256",
      };
      for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
      return { url: url.href, transaction };
    },

    async finish(query, transaction) {
      checkCallback(query, transaction);
      const metadata = await discovered();
      checkIssuerParameter(query, metadata);
      const code = query.get("code") as string;
      const secrets = [settings.client_secret, code, transaction.code_verifier];
      const tokens = await exchangeCode(metadata, settings, code, transaction.code_verifier, fetchImpl, secrets);
      const claims = await verifyIdToken(metadata, settings.client_id, tokens.id_token, transaction.nonce);
      const identity: OidcIdentity = { issuer: metadata.issuer, subject: claims.sub as string, ...profile(claims) };
      if (identity.email !== undefined && identity.name !== undefined) return identity;
      if (!metadata.userinfo_endpoint || !tokens.access_token) return identity;
      const more = await userinfo(metadata.userinfo_endpoint, tokens.access_token, identity.subject, fetchImpl);
      // email and email_verified travel together: a verified flag describes the address it came with.
      if (identity.email === undefined && more.email !== undefined) {
        identity.email = more.email;
        if (more.email_verified !== undefined) identity.email_verified = more.email_verified;
      }
      if (identity.name === undefined && more.name !== undefined) identity.name = more.name;
      return identity;
    },
  };
}

function checkSettings(settings: OidcSettings): void {
  const problems: string[] = [];
  const issuer = URL.canParse(settings.issuer) ? new URL(settings.issuer) : undefined;
  const loopback = issuer && ["localhost", "127.0.0.1", "[::1]"].includes(issuer.hostname);
  if (!issuer || !(issuer.protocol === "https:" || (issuer.protocol === "http:" && loopback))) {
    problems.push("auth.oidc.issuer must be an https URL (plain http only for localhost)");
  }
  if (!settings.client_id) problems.push("auth.oidc.client_id is empty");
  if (!settings.client_secret) problems.push("auth.oidc.client_secret is empty");
  if (!URL.canParse(settings.redirect_uri)) problems.push("the callback URL is not an absolute URL (check public_url)");
  if (problems.length > 0) {
    throw new OidcError("config_invalid", `OIDC sign-in is misconfigured: ${problems.join("; ")}.`);
  }
}

/** The checks that need no provider: a transaction, fresh, for this `state`, with no `error` and a `code`. */
function checkCallback(query: URLSearchParams, transaction: OidcTransaction | null | undefined): asserts transaction {
  const again = "Start the sign-in again.";
  if (!transaction) {
    throw new OidcError(
      "callback_invalid",
      `No sign-in is in progress in this browser (its sign-in cookie is missing or expired). ${again}`,
    );
  }
  if (Date.now() - transaction.created_at > OIDC_TRANSACTION_MAX_AGE_SECONDS * 1000) {
    throw new OidcError(
      "callback_invalid",
      `This sign-in took longer than ${OIDC_TRANSACTION_MAX_AGE_SECONDS / 60} minutes and has expired. ${again}`,
    );
  }
  if (query.get("state") !== transaction.state) {
    throw new OidcError(
      "callback_invalid",
      `This sign-in response does not belong to the sign-in this browser started (state mismatch). ${again}`,
    );
  }
  const error = query.get("error");
  if (error !== null) {
    const description = providerText(query.get("error_description"), []).replace(/[.\s]+$/, "");
    const what =
      error === "access_denied"
        ? "The sign-in was cancelled or refused at the identity provider"
        : "The identity provider ended the sign-in";
    throw new OidcError(
      "sign_in_denied",
      `${what} (${providerText(error, [])}${description ? `: ${description}` : ""}). ${again} If it keeps failing, ask the provider's administrator whether this account may use this server.`,
    );
  }
  if (!query.get("code")) {
    throw new OidcError("callback_invalid", `The sign-in response has no authorization code. ${again}`);
  }
}

/** RFC 9207: the callback names its issuer, which must be ours (it must be present when the provider advertises it). */
function checkIssuerParameter(query: URLSearchParams, metadata: ProviderMetadata): void {
  const iss = query.get("iss");
  const missing = iss === null && metadata.authorization_response_iss_parameter_supported === true;
  if (missing || (iss !== null && iss !== metadata.issuer)) {
    const which = missing
      ? `does not name its identity provider, which ${metadata.issuer} always does`
      : `comes from another identity provider ("${providerText(iss, [])}") than ${metadata.issuer}`;
    throw new OidcError("callback_invalid", `This sign-in response ${which}. Start the sign-in again.`);
  }
}

interface TokenResponse {
  id_token: string;
  access_token?: string;
}

async function exchangeCode(
  metadata: ProviderMetadata,
  settings: OidcSettings,
  code: string,
  codeVerifier: string,
  fetchImpl: typeof fetch,
  secrets: string[],
): Promise<TokenResponse> {
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: settings.redirect_uri,
    code_verifier: codeVerifier,
  });
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (metadata.client_auth_method === "client_secret_basic") {
    // RFC 6749 §2.3.1: each part is form-encoded before the Basic encoding.
    const credentials = `${formEncode(settings.client_id)}:${formEncode(settings.client_secret)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
  } else {
    body.set("client_id", settings.client_id);
    body.set("client_secret", settings.client_secret);
  }
  const response = await callProvider(fetchImpl, "token endpoint", metadata.token_endpoint, {
    method: "POST",
    headers,
    body,
  });
  const json = (await readJson(response, "token endpoint")) as Record<string, unknown>;
  if (!response.ok) throw tokenError(response.status, json, secrets);
  if (typeof json.id_token !== "string") {
    throw new OidcError(
      "token_exchange_failed",
      "The identity provider's token endpoint returned no ID token. Check that the client may use the openid scope at the provider.",
    );
  }
  return {
    id_token: json.id_token,
    access_token: typeof json.access_token === "string" ? json.access_token : undefined,
  };
}

function tokenError(status: number, json: Record<string, unknown>, secrets: string[]): OidcError {
  const error = providerText(json.error ?? `HTTP ${status}`, secrets);
  const description = providerText(json.error_description, secrets);
  const said = `${error}${description ? `: ${description}` : ""}`;
  if (json.error === "invalid_client" || status === 401) {
    return new OidcError(
      "token_exchange_failed",
      `The identity provider rejected this server's client credentials (${said}). Check auth.oidc.client_id and auth.oidc.client_secret against the client registered at the provider.`,
    );
  }
  if (json.error === "invalid_grant") {
    return new OidcError(
      "token_exchange_failed",
      `The identity provider did not accept the sign-in code (${said}); it may have expired or been used already. Start the sign-in again.`,
    );
  }
  return new OidcError(
    status >= 500 ? "provider_unreachable" : "token_exchange_failed",
    `The identity provider's token endpoint refused the sign-in (HTTP ${status}, ${said}). Start the sign-in again; if it keeps failing, check the client's settings at the provider (redirect URI ${status >= 500 ? "and the provider's health" : "and allowed grant types"}).`,
  );
}

/** Verifies the ID token and returns its claims; every failure names the check that failed. */
async function verifyIdToken(
  metadata: ProviderMetadata & { jwks: ReturnType<typeof createRemoteJWKSet> },
  clientId: string,
  idToken: string,
  nonce: string,
): Promise<JWTPayload> {
  const invalid = (why: string, hint = "check auth.oidc.issuer and auth.oidc.client_id") =>
    new OidcError(
      "id_token_invalid",
      `The identity provider's ID token was rejected: ${why}. Start the sign-in again; if it keeps failing, ${hint}.`,
    );
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, metadata.jwks, {
      issuer: metadata.issuer,
      audience: clientId,
      algorithms: metadata.id_token_algorithms,
      requiredClaims: ["sub", "exp", "iat"],
      clockTolerance: 60,
    }));
  } catch (error) {
    const { code, claim } = error as { code?: unknown; claim?: unknown };
    if (code === "ERR_JWKS_TIMEOUT" || (code === undefined && error instanceof TypeError)) {
      throw new OidcError(
        "provider_unreachable",
        `Could not fetch the identity provider's signing keys from ${metadata.jwks_uri}. Check that the provider is up, then try again.`,
        { cause: error },
      );
    }
    if (typeof code !== "string") throw invalid("it could not be verified");
    // jose's messages name the failed check ('unexpected "aud" claim value') and never the token.
    const why = `${(error as Error).message} (${code})`;
    if (code === "ERR_JWKS_INVALID" || code === "ERR_JOSE_GENERIC") {
      throw invalid(why, `check that ${metadata.jwks_uri} serves the provider's signing keys`);
    }
    const timing = code === "ERR_JWT_EXPIRED" || claim === "iat" || claim === "nbf";
    throw invalid(
      why,
      timing ? "check this server's clock (the token's times are off by more than a minute)" : undefined,
    );
  }
  if (payload.nonce !== nonce)
    throw invalid("its nonce is not the one of this sign-in (a replayed or mixed-up response)");
  if (typeof payload.sub !== "string" || payload.sub === "") throw invalid("it names no subject (sub)");
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  const azp = payload.azp;
  if ((azp !== undefined || audiences.length > 1) && azp !== clientId) {
    throw invalid(`it was issued to another client (azp "${providerText(azp, [])}")`);
  }
  return payload;
}

async function userinfo(
  endpoint: string,
  accessToken: string,
  subject: string,
  fetchImpl: typeof fetch,
): Promise<Omit<OidcIdentity, "issuer" | "subject">> {
  const response = await callProvider(fetchImpl, "userinfo endpoint", endpoint, {
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
  });
  if (!response.ok) {
    throw new OidcError(
      response.status >= 500 ? "provider_unreachable" : "userinfo_failed",
      `The identity provider's userinfo endpoint answered HTTP ${response.status}. Start the sign-in again; if it keeps failing, allow the client the email and profile scopes at the provider, or have it put email and name in the ID token.`,
    );
  }
  const claims = (await readJson(response, "userinfo endpoint")) as Record<string, unknown> | null;
  if (claims?.sub !== subject) {
    throw new OidcError(
      "userinfo_failed",
      "The identity provider's userinfo endpoint describes a different person than the ID token. Start the sign-in again.",
    );
  }
  return profile(claims);
}

/** email, email_verified and name from ID token or userinfo claims; absent or malformed claims are left out. */
function profile(claims: Record<string, unknown>): Omit<OidcIdentity, "issuer" | "subject"> {
  const email = typeof claims.email === "string" && claims.email.includes("@") ? claims.email : undefined;
  // Some providers send "true"/"false" strings.
  const verified =
    claims.email_verified === true || claims.email_verified === "true"
      ? true
      : claims.email_verified === false || claims.email_verified === "false"
        ? false
        : undefined;
  const name = typeof claims.name === "string" && claims.name.trim() !== "" ? claims.name.trim() : undefined;
  return {
    ...(email !== undefined && { email, ...(verified !== undefined && { email_verified: verified }) }),
    ...(name !== undefined && { name }),
  };
}

/** application/x-www-form-urlencoded encoding of one value. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}
