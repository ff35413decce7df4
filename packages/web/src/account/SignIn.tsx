/**
 * The sign-in page, shown when the server has accounts and nobody is signed in: user name (or email)
 * and password, a button per single-sign-on provider, account creation when the server allows
 * registration, and the way to an API key instead. A refusal says why in the server's words (a wrong
 * password, or how long to wait after too many tries).
 */
import { KeyRound, LogIn } from "lucide-react";
import { useState } from "react";
import { apiUrl, errorDetail } from "../api";
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
  const [mode, setMode] = useState<"sign-in" | "register">("sign-in");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const registering = mode === "register";

  const submit = async () => {
    if (registering && password !== repeat) {
      setError("The two passwords differ. Type the same password twice.");
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
        aria-label={registering ? "Create an account" : "Sign in"}
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <h1>
          <LogIn size={18} aria-hidden /> {registering ? "Create an account" : "Sign in to DeerFlow"}
        </h1>
        <TextField label="User name or email" value={email} onChange={setEmail} autoComplete="username" autoFocus />
        <TextField
          label="Password"
          value={password}
          onChange={setPassword}
          type="password"
          autoComplete={registering ? "new-password" : "current-password"}
        />
        {registering && (
          <TextField
            label="Repeat password"
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
          {registering ? "Create account" : "Sign in"}
        </button>
        {!registering &&
          providers.providers.map((provider) => (
            <button
              key={provider.id}
              type="button"
              onClick={() => window.location.assign(`${apiUrl()}/v1/auth/oauth/${encodeURIComponent(provider.id)}`)}
            >
              Sign in with {provider.name}
            </button>
          ))}
        <div className="links small">
          {providers.allow_registration && (
            <button
              type="button"
              className="link"
              onClick={() => (setMode(registering ? "sign-in" : "register"), setError(undefined))}
            >
              {registering ? "I have an account" : "Create an account"}
            </button>
          )}
          <button type="button" className="link" onClick={onUseKey}>
            <KeyRound size={12} aria-hidden /> Use an API key instead
          </button>
        </div>
      </form>
    </div>
  );
}
