/**
 * Shown when the server answers 401 to a key (or has no accounts and wants one): asks for one of its
 * API keys, or a user's API token, and keeps it in this browser. On a server with accounts it offers
 * the sign-in page instead.
 */
import { KeyRound } from "lucide-react";
import { useState } from "react";

/** Props of {@link ApiKeyForm}. */
export interface ApiKeyFormProps {
  rejected: boolean;
  onSave: (key: string) => void;
  /** Present on a server with accounts: back to signing in with a password. */
  onSignIn?: () => void;
}

/** Renders the key form. */
export function ApiKeyForm({ rejected, onSave, onSignIn }: ApiKeyFormProps) {
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
          <KeyRound size={18} aria-hidden /> API key required
        </h1>
        <p className="muted">
          {onSignIn
            ? "Paste one of your API tokens (account menu → API tokens, or deerflow users token NAME) or one of the server's keys."
            : "This DeerFlow server requires an API key (server.api_keys or DEER_FLOW_API_KEYS on the server)."}
        </p>
        {rejected && <p className="error-text">The server did not accept that key. Check it and try again.</p>}
        <input
          type="password"
          aria-label="API key"
          placeholder="API key"
          value={key}
          onChange={(event) => setKey(event.target.value)}
          autoFocus
        />
        <button type="submit" disabled={!key.trim()}>
          Continue
        </button>
        {onSignIn && (
          <button type="button" className="link small" onClick={onSignIn}>
            Sign in with a password instead
          </button>
        )}
      </form>
    </div>
  );
}
