/**
 * OpenID Provider discovery: the operator configures only the issuer URL, and the endpoints, key set,
 * client authentication method and ID token algorithms come from its
 * `/.well-known/openid-configuration`. Everything this server relies on is checked here, once, so a
 * misconfigured issuer fails at the first sign-in with a message naming the missing piece.
 */
import { z } from "zod";
import { OidcError } from "./oidc-error.js";
import { callProvider, readJson } from "./oidc-http.js";

/** The fields of a discovery document this client uses (others are ignored). */
export const DiscoveryDocument = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
  userinfo_endpoint: z.url().optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  id_token_signing_alg_values_supported: z.array(z.string()).optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});
export type DiscoveryDocument = z.infer<typeof DiscoveryDocument>;

/** How a confidential client proves itself at the token endpoint. */
export type ClientAuthMethod = "client_secret_basic" | "client_secret_post";

/** A discovered provider, with the choices this client made from its document. */
export interface ProviderMetadata extends DiscoveryDocument {
  client_auth_method: ClientAuthMethod;
  /** Asymmetric algorithms the provider signs ID tokens with; the only ones accepted. */
  id_token_algorithms: string[];
}

/** Signature algorithms verified against the provider's JWKS (HMAC ones would need the client secret as key). */
const ASYMMETRIC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/**
 * Fetches and checks the discovery document of `issuer`.
 *
 * @example
 * const provider = await discover("https://id.example.com/realms/main", fetch);
 * provider.token_endpoint // "https://id.example.com/realms/main/protocol/openid-connect/token"
 */
export async function discover(issuer: string, fetchImpl: typeof fetch): Promise<ProviderMetadata> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const response = await callProvider(fetchImpl, "discovery document", url, {
    headers: { accept: "application/json" },
  });
  if (!response.ok) {
    throw new OidcError(
      response.status >= 500 ? "provider_unreachable" : "provider_invalid",
      `No OpenID Connect discovery document at ${url} (HTTP ${response.status}). ` +
        "Check auth.oidc.issuer: it must be the provider's issuer URL (for Keycloak https://host/realms/<realm>), " +
        "without /.well-known/openid-configuration.",
    );
  }
  const parsed = DiscoveryDocument.safeParse(await readJson(response, "discovery document"));
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "(document)"))];
    throw new OidcError(
      "provider_invalid",
      `The discovery document at ${url} lacks or has invalid: ${fields.join(", ")}. ` +
        "Check that auth.oidc.issuer points at an OpenID Connect provider, not a plain OAuth server or a web page.",
    );
  }
  const document = parsed.data;
  // A trailing slash is the one difference forgiven: ID tokens are checked against the document's spelling.
  if (document.issuer.replace(/\/+$/, "") !== issuer.replace(/\/+$/, "")) {
    throw new OidcError(
      "provider_invalid",
      `The provider at ${url} names its issuer "${document.issuer}", not "${issuer}". ` +
        `Set auth.oidc.issuer to exactly "${document.issuer}" (ID tokens are checked against it).`,
    );
  }
  return {
    ...document,
    client_auth_method: clientAuthMethod(document),
    id_token_algorithms: idTokenAlgorithms(document),
  };
}

/** `client_secret_basic` when offered (the default when the document is silent), else `client_secret_post`. */
function clientAuthMethod(document: DiscoveryDocument): ClientAuthMethod {
  const offered = document.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  if (offered.includes("client_secret_basic")) return "client_secret_basic";
  if (offered.includes("client_secret_post")) return "client_secret_post";
  throw new OidcError(
    "provider_invalid",
    `The provider's token endpoint accepts only ${offered.join(", ")}; this server authenticates with a client ` +
      "secret. Allow client_secret_basic or client_secret_post for this client at the provider.",
  );
}

/** RS256 when the document is silent (OpenID Connect Discovery's default), else the asymmetric ones listed. */
function idTokenAlgorithms(document: DiscoveryDocument): string[] {
  const offered = document.id_token_signing_alg_values_supported ?? ["RS256"];
  const usable = offered.filter((alg) => ASYMMETRIC_ALGORITHMS.includes(alg));
  if (usable.length > 0) return usable;
  throw new OidcError(
    "provider_invalid",
    `The provider signs ID tokens only with ${offered.join(", ")}; this server verifies public-key signatures. ` +
      "Configure the client at the provider to sign ID tokens with RS256 or ES256.",
  );
}
