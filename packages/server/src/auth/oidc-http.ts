/**
 * Every request to the identity provider goes through `callProvider`, so each has a deadline and a
 * network failure always reads the same way: which endpoint, why, and what the operator should check.
 */
import { OidcError } from "./oidc-error.js";

/** How long one request to the provider may take. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** Fetches `url` (an endpoint of the provider, named `what` in errors) with a deadline. */
export async function callProvider(
  fetchImpl: typeof fetch,
  what: string,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  try {
    return await fetchImpl(url, { ...init, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    throw new OidcError(
      "provider_unreachable",
      `Could not reach the identity provider's ${what} at ${url} (${networkReason(error)}). ` +
        "Check auth.oidc.issuer and that the provider is up, then try again.",
      { cause: error },
    );
  }
}

/** The body as JSON, or a `provider_invalid` error naming the endpoint, the status and the content type. */
export async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    const type = response.headers.get("content-type") ?? "no content type";
    throw new OidcError(
      "provider_invalid",
      `The identity provider's ${what} at ${response.url} answered HTTP ${response.status} with ${type}, not JSON. ` +
        "Check auth.oidc.issuer: it must be the provider's issuer URL.",
    );
  }
}

/** `ECONNREFUSED`, `timed out`, ...: the most specific reason a fetch failed. */
function networkReason(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError")
    return `no answer in ${PROVIDER_TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}
