/**
 * The one error type of OIDC sign-in. Its message is shown to the person signing in or to the operator,
 * so it says what failed and what to do, and it never carries the client secret, the authorization code
 * or a token: provider-supplied text is passed through `providerText`, which cuts it short and blanks
 * any secret it echoes.
 */

/**
 * What failed, for callers that pick a status or a page:
 * - `config_invalid`: `auth.oidc` settings cannot work (the operator must fix the config).
 * - `provider_unreachable`: the provider did not answer (network, DNS, timeout, 5xx).
 * - `provider_invalid`: the provider answered, but not as an OpenID Provider for this issuer should
 *   (discovery missing or incomplete, issuer mismatch, non-JSON answers).
 * - `callback_invalid`: the callback does not belong to a sign-in this browser started (no or stale
 *   transaction, state mismatch, missing code, wrong `iss`); the person should start again.
 * - `sign_in_denied`: the provider ended the sign-in with an `error` (cancelled, refused, ...).
 * - `token_exchange_failed`: the token endpoint refused the code or this server's client credentials.
 * - `id_token_invalid`: the ID token failed verification (signature, iss, aud, exp, nonce, azp, sub).
 * - `userinfo_failed`: the userinfo endpoint failed or described another subject.
 */
export type OidcErrorCode =
  | "config_invalid"
  | "provider_unreachable"
  | "provider_invalid"
  | "callback_invalid"
  | "sign_in_denied"
  | "token_exchange_failed"
  | "id_token_invalid"
  | "userinfo_failed";

/** A failed OIDC sign-in step. `message` is safe to show and log. */
export class OidcError extends Error {
  readonly code: OidcErrorCode;

  constructor(code: OidcErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OidcError";
    this.code = code;
  }
}

/**
 * Text from the provider (an `error_description`, a status line) made fit for a message: one line,
 * at most 200 characters, and every secret in `secrets` replaced by `[redacted]`.
 *
 * @example
 * providerText("code abc123 was already used", ["abc123"]) // "code [redacted] was already used"
 */
export function providerText(text: unknown, secrets: readonly string[]): string {
  let line = String(text ?? "")
    .replace(/\s+/g, " ")
    .trim();
  for (const secret of secrets) if (secret) line = line.split(secret).join("[redacted]");
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
