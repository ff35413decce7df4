/**
 * The signed-in user's API tokens: the list (label, first characters, created, last used), a new
 * token with a label (its secret shown once, with a copy button), and revoke. A token acts as its
 * user: `X-Api-Key: <token>` or `Authorization: Bearer <token>` on any API call.
 */
import { Plus, Trash2 } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { errorDetail } from "../api";
import { type ApiToken, createToken, listTokens, revokeToken } from "./account-api";
import { SecretOnce } from "./SecretOnce";

/** A date as the person reads it, or "never". */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "never";
}

/** Props of {@link TokensPage}. */
export interface TokensPageProps {
  apiKey: string | undefined;
}

/** Renders the tokens page. */
export function TokensPage({ apiKey }: TokensPageProps) {
  const [tokens, setTokens] = useState<ApiToken[]>();
  const [error, setError] = useState<string>();
  const [label, setLabel] = useState("");
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const [confirming, setConfirming] = useState<string>();

  const load = useCallback(async () => {
    try {
      setTokens(await listTokens(apiKey));
      setError(undefined);
    } catch (failure) {
      setError(errorDetail(failure));
    }
  }, [apiKey]);
  useEffect(() => {
    void load();
  }, [load]);

  const create = async () => {
    try {
      const token = await createToken(apiKey, label.trim());
      setCreated({ name: token.name ?? label.trim(), token: token.token });
      setLabel("");
      await load();
    } catch (failure) {
      setError(errorDetail(failure));
    }
  };
  const revoke = async (id: string) => {
    setConfirming(undefined);
    try {
      await revokeToken(apiKey, id);
      await load();
    } catch (failure) {
      setError(errorDetail(failure));
    }
  };

  return (
    <section className="account-section" aria-label="API tokens">
      <h2>API tokens</h2>
      <p className="muted">
        A token lets a script or another client act as you: send it as <code>X-Api-Key</code> or{" "}
        <code>Authorization: Bearer</code>. Revoke one you no longer use.
      </p>
      {created ? (
        <SecretOnce
          label={created.name ? `New token “${created.name}”` : "New token"}
          secret={created.token}
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <input
            aria-label="Token label"
            placeholder="Label, e.g. laptop script"
            maxLength={100}
            value={label}
            onChange={(event) => setLabel(event.target.value)}
          />
          <button type="submit" className="primary">
            <Plus size={14} aria-hidden /> Create token
          </button>
        </form>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {tokens === undefined && !error && <p className="muted">Loading…</p>}
      {tokens?.length === 0 && <p className="muted">No API tokens yet.</p>}
      {tokens && tokens.length > 0 && (
        <div className="table-wrap">
          <table className="data-table">
            <thead>
              <tr>
                <th>Label</th>
                <th>Token</th>
                <th>Created</th>
                <th>Last used</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((token) => (
                <tr key={token.id} data-testid="token-row">
                  <td>{token.name || <span className="muted">(no label)</span>}</td>
                  <td>
                    <code>{token.prefix}…</code>
                  </td>
                  <td>{when(token.created_at)}</td>
                  <td>{when(token.last_used_at)}</td>
                  <td className="actions">
                    {confirming === token.id ? (
                      <span className="confirm">
                        Revoke? Clients using it stop working.
                        <button type="button" className="danger" onClick={() => void revoke(token.id)}>
                          Revoke
                        </button>
                        <button type="button" onClick={() => setConfirming(undefined)}>
                          Keep
                        </button>
                      </span>
                    ) : (
                      <button
                        type="button"
                        className="icon-btn"
                        aria-label={`Revoke ${token.name || token.prefix}`}
                        onClick={() => setConfirming(token.id)}
                      >
                        <Trash2 size={14} />
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
