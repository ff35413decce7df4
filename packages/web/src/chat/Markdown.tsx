/**
 * Markdown as the agent writes it: GFM (tables, task lists, strikethrough, autolinks) through
 * react-markdown + remark-gfm, raw HTML never rendered. Fenced code is highlighted by highlight.js,
 * which is loaded on first use so it stays out of the initial bundle.
 */
import { memo, useEffect, useState, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

type Highlighter = (code: string, language: string | undefined) => string;
let highlighterPromise: Promise<Highlighter> | undefined;

/** Loads highlight.js (common languages) once. */
function loadHighlighter(): Promise<Highlighter> {
  highlighterPromise ??= import("./highlight").then((module) => module.highlight);
  return highlighterPromise;
}

/** A fenced code block: plain first, highlighted once highlight.js has loaded. */
export function CodeBlock({ code, language }: { code: string; language?: string }) {
  const [html, setHtml] = useState<string>();
  useEffect(() => {
    let alive = true;
    loadHighlighter().then((highlight) => alive && setHtml(highlight(code, language)), () => undefined);
    return () => {
      alive = false;
    };
  }, [code, language]);
  return (
    <pre className="code">
      {html ? (
        // biome-ignore lint/security/noDangerouslySetInnerHtml: highlight.js escapes the code it marks up
        <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
      ) : (
        <code>{code}</code>
      )}
    </pre>
  );
}

const components: Components = {
  code({ className, children }) {
    const language = /language-(\S+)/.exec(className ?? "")?.[1];
    const text = String(children as ReactNode).replace(/\n$/, "");
    if (!language && !text.includes("\n")) return <code className="inline-code">{children}</code>;
    return <CodeBlock code={text} language={language} />;
  },
  pre({ children }) {
    return <>{children}</>;
  },
  a({ href, children }) {
    return (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    );
  },
};

/** Renders Markdown text. Memoized: a finished message does not re-render while another streams. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
