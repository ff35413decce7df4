/**
 * The sign-in page, shown when the server has accounts and nobody is signed in: user name (or email)
 * and password, a button per single-sign-on provider, account creation when the server allows
 * registration, and the way to an API key instead. A refusal says why in the server's words (a wrong
 * password, or how long to wait after too many tries).
 */
import { KeyRound, LogIn } from "lucide-react";
import { useState } from "react";
import { apiUrl, errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { type Providers, register, signIn } from "./account-api";
import { TextField } from "./TextField";

/** Props of {@link SignIn}. */
export interface SignInProps {
  providers: Providers;
  /** Called once the server set the session cookies. */
  onSignedIn: () => void;
  /** Switches to the API key form. */
  onUseKey: () => void;
}

/** Renders the sign-in page. */
export function SignIn({ providers, onSignedIn, onUseKey }: SignInProps) {
  useLocale();
  const [mode, setMode] = useState<"sign-in" | "register">("sign-in");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const registering = mode === "register";

  const submit = async () => {
    if (registering && password !== repeat) {
      setError(t("account.passwordsDiffer"));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await (registering ? register : signIn)(email.trim(), password);
      onSignedIn();
    } catch (failure) {
      setError(errorDetail(failure));
      setBusy(false);
    }
  };

  return (
    <div className="center-page">
      <form
        className="card sign-in"
        aria-label={registering ? t("signIn.createAccount") : t("signIn.signIn")}
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <h1>
          <LogIn size={18} aria-hidden /> {registering ? t("signIn.createAccount") : t("signIn.title")}
        </h1>
        <TextField label={t("signIn.user")} value={email} onChange={setEmail} autoComplete="username" autoFocus />
        <TextField
          label={t("account.password")}
          value={password}
          onChange={setPassword}
          type="password"
          autoComplete={registering ? "new-password" : "current-password"}
        />
        {registering && (
          <TextField
            label={t("account.repeatPassword")}
            value={repeat}
            onChange={setRepeat}
            type="password"
            autoComplete="new-password"
          />
        )}
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy || !email.trim() || !password}>
          {registering ? t("signIn.create") : t("signIn.signIn")}
        </button>
        {!registering &&
          providers.providers.map((provider) => (
            <button
              key={provider.id}
              type="button"
              onClick={() => window.location.assign(`${apiUrl()}/v1/auth/oauth/${encodeURIComponent(provider.id)}`)}
            >
              {t("signIn.with", { provider: provider.name })}
            </button>
          ))}
        <div className="links small">
          {providers.allow_registration && (
            <button
              type="button"
              className="link"
              onClick={() => (setMode(registering ? "sign-in" : "register"), setError(undefined))}
            >
              {registering ? t("signIn.haveAccount") : t("signIn.createAccount")}
            </button>
          )}
          <button type="button" className="link" onClick={onUseKey}>
            <KeyRound size={12} aria-hidden /> {t("signIn.useKey")}
          </button>
        </div>
      </form>
    </div>
  );
}
