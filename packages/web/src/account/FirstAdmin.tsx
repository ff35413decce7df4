/**
 * The first admin's setup, shown when the server requires accounts and has none yet: email (or a user
 * name), password and the password again. The server signs the new admin in. A server with API keys
 * refuses (its first admin comes from the CLI or a server key), and one set up meanwhile sends the
 * person to the sign-in page.
 */
import { ShieldCheck } from "lucide-react";
import { useState } from "react";
import { errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { initialize } from "./account-api";
import { TextField } from "./TextField";

/** Props of {@link FirstAdmin}. */
export interface FirstAdminProps {
  /** Called once the admin exists and is signed in. */
  onDone: () => void;
  /** Called when someone else set the server up meanwhile (409): sign in instead. */
  onAlreadySetUp: () => void;
  /** Switches to the API key form (a server with keys sets up with one). */
  onUseKey: () => void;
}

/** Renders the setup page. */
export function FirstAdmin({ onDone, onAlreadySetUp, onUseKey }: FirstAdminProps) {
  useLocale();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [error, setError] = useState<{ text: string; status?: number }>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    if (password !== repeat) {
      setError({ text: t("account.passwordsDiffer") });
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await initialize(email.trim(), password);
      onDone();
    } catch (failure) {
      setError({ text: errorDetail(failure), status: (failure as { status?: number }).status });
      setBusy(false);
    }
  };

  return (
    <div className="center-page">
      <form
        className="card sign-in"
        aria-label={t("setup.title")}
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <h1>
          <ShieldCheck size={18} aria-hidden /> {t("setup.title")}
        </h1>
        <p className="muted">{t("setup.intro")}</p>
        <TextField label={t("setup.email")} value={email} onChange={setEmail} autoComplete="username" autoFocus />
        <TextField
          label={t("account.password")}
          value={password}
          onChange={setPassword}
          type="password"
          autoComplete="new-password"
        />
        <TextField
          label={t("account.repeatPassword")}
          value={repeat}
          onChange={setRepeat}
          type="password"
          autoComplete="new-password"
        />
        <p className="muted small">{t("account.atLeast8")}</p>
        {error && (
          <p className="error-text" role="alert">
            {error.text}
          </p>
        )}
        {error?.status === 409 && (
          <button type="button" onClick={onAlreadySetUp}>
            {t("setup.goToSignIn")}
          </button>
        )}
        {error?.status === 403 && (
          <button type="button" onClick={onUseKey}>
            {t("setup.useKey")}
          </button>
        )}
        <button type="submit" className="primary" disabled={busy || !email.trim() || !password || !repeat}>
          {t("setup.create")}
        </button>
      </form>
    </div>
  );
}
