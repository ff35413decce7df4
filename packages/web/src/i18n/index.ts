/**
 * The app's two languages. Every string a person reads goes through {@link t} with a key from the
 * English catalog; the Chinese catalog must carry the same keys (its type says so). The language
 * follows the browser until the person picks one in Settings, which is kept in localStorage.
 * Components that render text call {@link useLocale} so a switch re-renders them.
 */
import { useSyncExternalStore } from "react";
import { en, type MessageKey } from "./en";
import { zh } from "./zh";

export type Locale = "en" | "zh";
export type { MessageKey };

const STORAGE = "deerflow.locale";
const catalogs: Record<Locale, Record<MessageKey, string>> = { en, zh };
const listeners = new Set<() => void>();

/** The browser's preferred language, as one of ours: Chinese for any `zh*`, otherwise English. */
export function browserLocale(languages: readonly string[] = globalThis.navigator?.languages ?? []): Locale {
  for (const language of languages) {
    const base = language.toLowerCase().split("-")[0];
    if (base === "zh") return "zh";
    if (base === "en") return "en";
  }
  return "en";
}

/** The language picked in Settings, or `undefined` while the app follows the browser. */
export function storedLocale(): Locale | undefined {
  try {
    const value = globalThis.localStorage?.getItem(STORAGE);
    return value === "en" || value === "zh" ? value : undefined;
  } catch {
    return undefined;
  }
}

let current: Locale = storedLocale() ?? browserLocale();
applyToDocument(current);

function applyToDocument(locale: Locale): void {
  if (globalThis.document) document.documentElement.lang = locale === "zh" ? "zh-CN" : "en";
}

/** The language strings are shown in now. */
export function locale(): Locale {
  return current;
}

/** Switches the language (and remembers the choice); `undefined` goes back to following the browser. */
export function setLocale(next: Locale | undefined): void {
  try {
    if (next) localStorage.setItem(STORAGE, next);
    else localStorage.removeItem(STORAGE);
  } catch {
    // Private windows may refuse storage; the switch still applies to this page.
  }
  current = next ?? browserLocale();
  applyToDocument(current);
  for (const listener of listeners) listener();
}

/** Re-renders the calling component when the language changes, and returns it. */
export function useLocale(): Locale {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    locale,
    locale,
  );
}

/**
 * The string for `key` in the current language, with `{name}` placeholders filled from `vars`.
 * A key missing from the Chinese catalog at run time (it cannot be, by type) falls back to English.
 */
export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  const template = catalogs[current][key] ?? en[key];
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/** The BCP 47 tag for `Intl` and `toLocaleString` in the current language. */
export function intlLocale(): string {
  return current === "zh" ? "zh-CN" : "en";
}

/** A date and time as the person reads it in the current language. */
export function formatDateTime(value: string | number | Date): string {
  return new Date(value).toLocaleString(intlLocale());
}
