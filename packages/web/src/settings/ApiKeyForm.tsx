/** Shown when the server answers 401: asks for one of its API keys and keeps it in this browser. */
import { KeyRound } from "lucide-react";
import { useState } from "react";

/** Renders the key form. */
export function ApiKeyForm({ rejected, onSave }: { rejected: boolean; onSave: (key: string) => void }) {
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
          This DeerFlow server requires an API key (server.api_keys or DEER_FLOW_API_KEYS on the server).
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
      </form>
    </div>
  );
}
