/**
 * Shown when the server answers 401 to a key (or has no accounts and wants one): asks for one of its
 * API keys, or a user's API token, and keeps it in this browser. On a server with accounts it offers
 * the sign-in page instead.
 */
import { KeyRound } from "lucide-react";
import { useState } from "react";
import { t, useLocale } from "../i18n";

/** Props of {@link ApiKeyForm}. */
export interface ApiKeyFormProps {
  rejected: boolean;
  onSave: (key: string) => void;
  /** Present on a server with accounts: back to signing in with a password. */
  onSignIn?: () => void;
}

/** Renders the key form. */
export function ApiKeyForm({ rejected, onSave, onSignIn }: ApiKeyFormProps) {
  useLocale();
  const [key, setKey] = useState("");
  return (
    <div className="center-page">
      <form
        className="card api-key"
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim()) onSave(key.trim());
        }}
      >
        <h1>
          <KeyRound size={18} aria-hidden /> {t("apiKey.title")}
        </h1>
        <p className="muted">{onSignIn ? t("apiKey.hintAccounts") : t("apiKey.hint")}</p>
        {rejected && <p className="error-text">{t("apiKey.rejected")}</p>}
        <input
          type="password"
          aria-label={t("apiKey.label")}
          placeholder={t("apiKey.label")}
          value={key}
          onChange={(event) => setKey(event.target.value)}
          autoFocus
        />
        <button type="submit" disabled={!key.trim()}>
          {t("apiKey.continue")}
        </button>
        {onSignIn && (
          <button type="button" className="link small" onClick={onSignIn}>
            {t("apiKey.signInInstead")}
          </button>
        )}
      </form>
    </div>
  );
}
