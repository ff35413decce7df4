/**
 * One labelled input of the account forms (sign-in, setup, password): the label wraps the input, so a
 * click on the text focuses it and screen readers name it.
 */

/** Props of `TextField`. */
export interface TextFieldProps {
  label: string;
  value: string;
  onChange(value: string): void;
  type?: "text" | "password";
  autoComplete: string;
  autoFocus?: boolean;
}

/** A required text or password field. */
export function TextField({ label, value, onChange, type = "text", autoComplete, autoFocus }: TextFieldProps) {
  return (
    <label className="field">
      {label}
      <input
        type={type}
        autoComplete={autoComplete}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        autoFocus={autoFocus}
        required
      />
    </label>
  );
}
