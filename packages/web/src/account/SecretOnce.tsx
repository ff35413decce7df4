/**
 * A secret the server shows once (a new API token, a new user's first token): the value, a Copy
 * button, and the warning that it cannot be shown again. The server keeps only its hash.
 */
import { Check, Copy, TriangleAlert } from "lucide-react";
import { useRef, useState } from "react";
import { t, useLocale } from "../i18n";

/** Props of {@link SecretOnce}. */
export interface SecretOnceProps {
  /** What the secret is, e.g. "New token for CI". */
  label: string;
  secret: string;
  onDone: () => void;
}

/** Renders the secret with its copy button and warning. */
export function SecretOnce({ label, secret, onDone }: SecretOnceProps) {
  useLocale();
  const [copied, setCopied] = useState<"yes" | "failed">();
  const field = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("yes");
    } catch {
      // No clipboard access (an insecure origin, or permission refused): select it for Ctrl+C.
      field.current?.select();
      setCopied("failed");
    }
  };
  return (
    <section className="secret-once" aria-label={label} data-testid="secret-once">
      <div className="label">{label}</div>
      <div className="secret-row">
        <input
          ref={field}
          readOnly
          aria-label={t("secret.token")}
          value={secret}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" onClick={() => void copy()}>
          {copied === "yes" ? <Check size={14} aria-hidden /> : <Copy size={14} aria-hidden />}{" "}
          {copied === "yes" ? t("secret.copied") : t("secret.copy")}
        </button>
      </div>
      <p className="warning small" role="note">
        <TriangleAlert size={14} aria-hidden /> {t("secret.warning")}
      </p>
      {copied === "failed" && <p className="muted small">{t("secret.copyRefused")}</p>}
      <button type="button" onClick={onDone}>
        {t("secret.done")}
      </button>
    </section>
  );
}
