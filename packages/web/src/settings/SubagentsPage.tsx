/**
 * The subagents page: the kinds the lead may delegate to on this server (`GET /api/subagents`: the
 * built-ins and config.yaml's custom kinds) with their limits, the server's caps, and the run switch
 * that lets this browser's runs delegate (the same `subagent_enabled` as the General tab). The kinds
 * are read-only here: they live in config.yaml.
 */
import { Bot } from "lucide-react";
import { useEffect, useState } from "react";
import { apiFetch, errorDetail, isNotFound } from "../api";
import { intlLocale, t, useLocale } from "../i18n";

/** One kind as the route lists it. */
interface SubagentKind {
  name: string;
  description: string;
  builtin: boolean;
  model: string | null;
  max_turns: number;
  timeout_seconds: number;
  max_tokens: number | null;
}

interface SubagentsListing {
  enabled: boolean;
  max_concurrent: number;
  max_total_per_run: number;
  subagents: SubagentKind[];
}

/** Props of {@link SubagentsPage}. */
export interface SubagentsPageProps {
  apiKey: string | undefined;
  /** Whether this browser's runs may delegate (settings `subagents`). */
  useSubagents: boolean;
  onUseSubagents: (enabled: boolean) => void;
}

/** Lists the subagent kinds and their limits. */
export function SubagentsPage({ apiKey, useSubagents, onUseSubagents }: SubagentsPageProps) {
  useLocale();
  const [listing, setListing] = useState<SubagentsListing>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    apiFetch("/subagents", apiKey)
      .then((response) => response.json() as Promise<SubagentsListing>)
      .then(setListing, (failure: unknown) =>
        setError(isNotFound(failure) ? t("subagentsPage.unavailable") : errorDetail(failure)),
      );
  }, [apiKey]);
  const number = (value: number) => value.toLocaleString(intlLocale());
  return (
    <section className="settings-page" aria-label={t("settings.tab.subagents")}>
      <label className="row">
        <input type="checkbox" checked={useSubagents} onChange={(event) => onUseSubagents(event.target.checked)} />{" "}
        {t("subagentsPage.useThem")}
      </label>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
      {listing === undefined ? (
        !error && <p className="muted small">{t("subagentsPage.loading")}</p>
      ) : (
        <>
          {!listing.enabled && <p className="warning small">{t("subagentsPage.serverOff")}</p>}
          <p className="muted small">
            {t("subagentsPage.caps", { concurrent: listing.max_concurrent, total: listing.max_total_per_run })}
          </p>
          <ul className="skills">
            {listing.subagents.map((kind) => (
              <li key={kind.name} className="skill" data-testid="subagent-kind">
                <div>
                  <Bot size={14} aria-hidden /> <strong>{kind.name}</strong>{" "}
                  <span className="muted small">
                    {kind.builtin ? t("subagentsPage.builtin") : t("subagentsPage.custom")}
                  </span>
                </div>
                <span className="muted small skill-description">{kind.description.split("\n")[0]}</span>
                <span className="small skill-description">
                  {t("subagentsPage.limits", { turns: number(kind.max_turns), seconds: number(kind.timeout_seconds) })}
                  {kind.max_tokens !== null && ` · ${t("subagentsPage.tokens", { tokens: number(kind.max_tokens) })}`}
                  {kind.model && ` · ${t("subagentsPage.model", { model: kind.model })}`}
                </span>
              </li>
            ))}
          </ul>
          <p className="muted small">{t("subagentsPage.configHint")}</p>
        </>
      )}
    </section>
  );
}
