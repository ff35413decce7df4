/**
 * The two languages: the catalogs carry the same keys, none empty, with the same placeholders; the app
 * follows a Chinese browser, the Settings switch changes the language at once (and is remembered), and
 * "follow the browser" goes back.
 */
import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { browserLocale, locale, setLocale, storedLocale, t } from "../src/i18n";
import { en } from "../src/i18n/en";
import { zh } from "../src/i18n/zh";
import { Composer } from "../src/chat/Composer";
import { SettingsPanel } from "../src/settings/SettingsPanel";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe("catalogs", () => {
  it("have the same keys, no empty strings, and the same placeholders", () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(en)) {
      expect(text.trim(), `en ${key}`).not.toBe("");
      const chinese = zh[key as keyof typeof en];
      expect(chinese.trim(), `zh ${key}`).not.toBe("");
      expect(placeholders(chinese), `placeholders of ${key}`).toEqual(placeholders(text));
    }
  });

  it("translate into Chinese (a Chinese string differs from the English one unless it is a name)", () => {
    const same = Object.keys(en).filter((key) => en[key as keyof typeof en] === zh[key as keyof typeof en]);
    expect(same.sort()).toEqual([
      "answer.exportJson",
      "answer.exportMarkdown",
      "mcp.url",
      "settings.language.en",
      "settings.language.zh",
      "settings.tab.mcp",
    ]);
  });
});

describe("choosing the language", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    setLocale("en");
    localStorage.clear();
  });

  it("reads a zh-CN browser as Chinese and anything else as English", () => {
    expect(browserLocale(["zh-CN", "en"])).toBe("zh");
    expect(browserLocale(["zh-TW"])).toBe("zh");
    expect(browserLocale(["fr-FR", "en-GB"])).toBe("en");
    expect(browserLocale(["fr-FR"])).toBe("en");
  });

  it("renders in Chinese for a zh-CN browser, switches to English in Settings, and back to the browser's", () => {
    vi.stubGlobal("navigator", { ...navigator, languages: ["zh-CN", "zh"] });
    setLocale(undefined);
    expect(locale()).toBe("zh");
    expect(document.documentElement.lang).toBe("zh-CN");
    render(
      <>
        <SettingsPanel
          settings={{ planMode: true, thinking: false, subagents: false, model: "", theme: "system" }}
          models={undefined}
          onChange={() => {}}
        />
        <Composer draftKey="i18n" running={false} onSend={() => undefined} onStop={() => {}} />
      </>,
    );
    expect(screen.getByRole("tab", { name: "通用" })).toBeTruthy();
    expect(screen.getByPlaceholderText("让 DeerFlow 做点什么…")).toBeTruthy();

    fireEvent.change(screen.getByLabelText("语言"), { target: { value: "en" } });
    expect(screen.getByRole("tab", { name: "General" })).toBeTruthy();
    expect(screen.getByPlaceholderText("Ask DeerFlow to do something…")).toBeTruthy();
    expect(storedLocale()).toBe("en");
    expect(document.documentElement.lang).toBe("en");

    fireEvent.change(screen.getByLabelText("Language"), { target: { value: "" } });
    expect(screen.getByRole("tab", { name: "通用" })).toBeTruthy();
    expect(storedLocale()).toBeUndefined();
  });

  it("fills placeholders", () => {
    setLocale("zh");
    expect(t("threads.rename", { title: "报告" })).toBe("重命名 报告");
    setLocale("en");
    expect(t("threads.rename", { title: "report" })).toBe("Rename report");
  });
});
