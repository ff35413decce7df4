/**
 * The signed-in user's API tokens: the list (label, first characters, created, last used), a new
 * token with a label (its secret shown once, with a copy button), and revoke. A token acts as its
 * user: `X-Api-Key: <token>` or `Authorization: Bearer <token>` on any API call.
 */
import { Plus, Trash2 } from "lucide-react";
import { useCallback, useState } from "react";
import { errorDetail } from "../api";
import { formatDateTime, t, useLocale } from "../i18n";
import { useServerList } from "../server-list";
import { createToken, listTokens, revokeToken } from "./account-api";
import { SecretOnce } from "./SecretOnce";

/** A date as the person reads it in the current language, or "never". */
export function when(iso: string | null | undefined): string {
  return iso ? formatDateTime(iso) : t("tokens.never");
}

/** Props of {@link TokensPage}. */
export interface TokensPageProps {
  apiKey: string | undefined;
}

/** Renders the tokens page. */
export function TokensPage({ apiKey }: TokensPageProps) {
  useLocale();
  const {
    items: tokens,
    error,
    setError,
    reload: load,
  } = useServerList(useCallback(() => listTokens(apiKey), [apiKey]));
  const [label, setLabel] = useState("");
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const [confirming, setConfirming] = useState<string>();

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
    <section className="account-section" aria-label={t("account.tokens")}>
      <h2>{t("account.tokens")}</h2>
      <p className="muted">{t("tokens.intro", { header: "X-Api-Key", bearer: "Authorization: Bearer" })}</p>
      {created ? (
        <SecretOnce
          label={created.name ? t("tokens.newNamed", { name: created.name }) : t("tokens.new")}
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
            aria-label={t("tokens.label")}
            placeholder={t("tokens.labelPlaceholder")}
            maxLength={100}
            value={label}
            onChange={(event) => setLabel(event.target.value)}
          />
          <button type="submit" className="primary">
            <Plus size={14} aria-hidden /> {t("tokens.create")}
          </button>
        </form>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {tokens === undefined && !error && <p className="muted">{t("common.loading")}</p>}
      {tokens?.length === 0 && <p className="muted">{t("tokens.empty")}</p>}
      {tokens && tokens.length > 0 && (
        <div className="table-wrap">
          <table className="data-table">
            <thead>
              <tr>
                <th>{t("tokens.colLabel")}</th>
                <th>{t("tokens.colToken")}</th>
                <th>{t("tokens.colCreated")}</th>
                <th>{t("tokens.colLastUsed")}</th>
                <th>
                  <span className="visually-hidden">{t("common.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((token) => (
                <tr key={token.id} data-testid="token-row">
                  <td>{token.name || <span className="muted">{t("tokens.noLabel")}</span>}</td>
                  <td>
                    <code>{token.prefix}…</code>
                  </td>
                  <td>{when(token.created_at)}</td>
                  <td>{when(token.last_used_at)}</td>
                  <td className="actions">
                    {confirming === token.id ? (
                      <span className="confirm">
                        {t("tokens.revokeConfirm")}
                        <button type="button" className="danger" onClick={() => void revoke(token.id)}>
                          {t("tokens.revoke")}
                        </button>
                        <button type="button" onClick={() => setConfirming(undefined)}>
                          {t("common.keep")}
                        </button>
                      </span>
                    ) : (
                      <button
                        type="button"
                        className="icon-btn"
                        aria-label={t("tokens.revokeNamed", { name: token.name || token.prefix })}
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
