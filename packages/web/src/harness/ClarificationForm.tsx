/**
 * A clarification form (`human_input` version 2): one input per field, by type. Submitting sends one
 * reply, a `Label: value` line per filled field (what `deerflow chat` sends too), so the model reads the
 * answers as an ordinary user message.
 */
import { type FormEvent, useId, useState } from "react";
import type { FormField } from "../chat/messages";
import { t, useLocale } from "../i18n";

/** A field's value while the form is filled in. */
type FieldValue = string | string[] | boolean;

/** The reply a filled form sends: a `Label: value` line per filled field. */
export function formAnswer(fields: readonly FormField[], values: ReadonlyMap<string, FieldValue>): string {
  const lines = fields.flatMap((field) => {
    const value = values.get(field.name);
    if (field.type === "checkbox")
      return value === true ? [`${field.label}: yes`] : field.required ? [] : [`${field.label}: no`];
    const text = Array.isArray(value) ? value.join(", ") : typeof value === "string" ? value.trim() : "";
    return text ? [`${field.label}: ${text}`] : [];
  });
  return lines.length > 0 ? lines.join("\n") : "(no values given)";
}

/** The labels of required fields still empty (a required checkbox must be ticked). */
export function missingFields(fields: readonly FormField[], values: ReadonlyMap<string, FieldValue>): string[] {
  return fields
    .filter((field) => {
      if (!field.required) return false;
      const value = values.get(field.name);
      if (field.type === "checkbox") return value !== true;
      return Array.isArray(value) ? value.length === 0 : typeof value !== "string" || value.trim() === "";
    })
    .map((field) => field.label);
}

/** Renders the form; `onAnswer` gets the reply text. */
export function ClarificationForm({
  fields,
  onAnswer,
}: {
  fields: readonly FormField[];
  onAnswer: (text: string) => void;
}) {
  useLocale();
  const [values, setValues] = useState<ReadonlyMap<string, FieldValue>>(() => new Map());
  const set = (name: string, value: FieldValue) => setValues((current) => new Map(current).set(name, value));
  const missing = missingFields(fields, values);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (missing.length === 0) onAnswer(formAnswer(fields, values));
  };
  return (
    <form className="clarification-form" onSubmit={submit} data-testid="clarification-form">
      {fields.map((field) => (
        <FieldInput
          key={field.name}
          field={field}
          value={values.get(field.name)}
          onChange={(v) => set(field.name, v)}
        />
      ))}
      <button
        type="submit"
        disabled={missing.length > 0}
        title={missing.length > 0 ? t("clarification.stillNeeded", { fields: missing.join(", ") }) : undefined}
      >
        {t("clarification.sendAnswers")}
      </button>
    </form>
  );
}

function FieldInput({
  field,
  value,
  onChange,
}: {
  field: FormField;
  value: FieldValue | undefined;
  onChange: (value: FieldValue) => void;
}) {
  const id = useId();
  const label = `${field.label}${field.required ? " *" : ""}`;
  const text = typeof value === "string" ? value : "";
  if (field.type === "checkbox")
    return (
      <label className="field field-checkbox">
        <input type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} />
        {label}
      </label>
    );
  if (field.type === "multi_select") {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="field">
        <legend>{label}</legend>
        {(field.options ?? []).map((option) => (
          <label key={option.id} className="field-checkbox">
            <input
              type="checkbox"
              checked={chosen.includes(option.value)}
              onChange={(event) =>
                onChange(
                  event.target.checked ? [...chosen, option.value] : chosen.filter((item) => item !== option.value),
                )
              }
            />
            {option.label}
          </label>
        ))}
      </fieldset>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {field.type === "select" ? (
        <select id={id} value={text} onChange={(event) => onChange(event.target.value)}>
          <option value="">{t("clarification.choose")}</option>

          {(field.options ?? []).map((option) => (
            <option key={option.id} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : field.type === "textarea" ? (
        <textarea
          id={id}
          value={text}
          placeholder={field.placeholder}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : (
        <input
          id={id}
          type={field.type === "number" ? "number" : field.type === "date" ? "date" : "text"}
          value={text}
          placeholder={field.placeholder}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </div>
  );
}
