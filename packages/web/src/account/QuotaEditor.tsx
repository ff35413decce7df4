/** The users page's limit editor for one user: a field per quota (blank = no limit), Save and Cancel. */
import { useState } from "react";
import type { Quotas } from "./account-api";
import { limitText, QUOTA_FIELDS, quotaPatch } from "./quotas";

/** Props of {@link QuotaEditor}. */
export interface QuotaEditorProps {
  name: string;
  effective: Quotas;
  defaults: Quotas;
  onSave: (patch: Partial<Quotas>) => void;
  onCancel: () => void;
}

/** Renders the editor. */
export function QuotaEditor({ name, effective, defaults, onSave, onCancel }: QuotaEditorProps) {
  const [form, setForm] = useState(
    () =>
      Object.fromEntries(QUOTA_FIELDS.map(({ key }) => [key, limitText(effective[key])])) as Record<
        keyof Quotas,
        string
      >,
  );
  const [error, setError] = useState<string>();
  return (
    <form
      className="quota-editor"
      aria-label={`Limits of ${name}`}
      onSubmit={(event) => {
        event.preventDefault();
        const result = quotaPatch(effective, form);
        if ("error" in result) setError(result.error);
        else onSave(result.patch);
      }}
    >
      {QUOTA_FIELDS.map(({ key, label }) => (
        <label key={key} className="field">
          {label}
          <input
            inputMode="numeric"
            aria-label={label}
            placeholder="no limit"
            value={form[key]}
            onChange={(event) => setForm({ ...form, [key]: event.target.value })}
          />
          <span className="muted small">default: {defaults[key] === null ? "no limit" : defaults[key]}</span>
        </label>
      ))}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      <div className="row-buttons">
        <button type="submit" className="primary">
          Save limits
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
