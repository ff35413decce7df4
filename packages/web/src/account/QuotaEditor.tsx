/** The users page's limit editor for one user: a field per quota (blank = no limit), Save and Cancel. */
import { useState } from "react";
import { t, useLocale } from "../i18n";
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
  useLocale();
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
      aria-label={t("quota.limitsOf", { name })}
      onSubmit={(event) => {
        event.preventDefault();
        const result = quotaPatch(effective, form);
        if ("error" in result) setError(result.error);
        else onSave(result.patch);
      }}
    >
      {QUOTA_FIELDS.map(({ key, label }) => (
        <label key={key} className="field">
          {t(label)}
          <input
            inputMode="numeric"
            aria-label={t(label)}
            placeholder={t("quota.noLimit")}
            value={form[key]}
            onChange={(event) => setForm({ ...form, [key]: event.target.value })}
          />
          <span className="muted small">{t("quota.default", { value: defaults[key] ?? t("quota.noLimit") })}</span>
        </label>
      ))}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      <div className="row-buttons">
        <button type="submit" className="primary">
          {t("quota.save")}
        </button>
        <button type="button" onClick={onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}
