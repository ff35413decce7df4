/**
 * Change password: the current one (unless the account has none yet, e.g. it signs in through single
 * sign-on), the new one twice. The server's refusal (wrong current password, too short) is shown as is.
 */
import { useState } from "react";
import { errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { changePassword } from "./account-api";
import { TextField } from "./TextField";

/** Props of {@link PasswordForm}. */
export interface PasswordFormProps {
  apiKey: string | undefined;
  /** False for an account without a password: then no current password is asked. */
  hasPassword: boolean;
}

/** Renders the form. */
export function PasswordForm({ apiKey, hasPassword }: PasswordFormProps) {
  useLocale();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    if (next !== repeat) {
      setOutcome({ ok: false, text: t("account.newPasswordsDiffer") });
      return;
    }
    setBusy(true);
    try {
      await changePassword(apiKey, current, next);
      setOutcome({ ok: true, text: t("password.changed") });
      setCurrent("");
      setNext("");
      setRepeat("");
    } catch (failure) {
      setOutcome({ ok: false, text: errorDetail(failure) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="account-section narrow"
      aria-label={t("account.changePassword")}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h2>{hasPassword ? t("account.changePassword") : t("password.set")}</h2>
      {hasPassword && (
        <TextField
          label={t("password.current")}
          value={current}
          onChange={setCurrent}
          type="password"
          autoComplete="current-password"
        />
      )}
      <TextField
        label={t("password.new")}
        value={next}
        onChange={setNext}
        type="password"
        autoComplete="new-password"
      />
      <TextField
        label={t("password.repeatNew")}
        value={repeat}
        onChange={setRepeat}
        type="password"
        autoComplete="new-password"
      />
      <p className="muted small">{t("account.atLeast8")}</p>
      {outcome && (
        <p className={outcome.ok ? "ok-text" : "error-text"} role={outcome.ok ? "status" : "alert"}>
          {outcome.text}
        </p>
      )}
      <button type="submit" className="primary" disabled={busy || !next || !repeat || (hasPassword && !current)}>
        {t("account.changePassword")}
      </button>
    </form>
  );
}
