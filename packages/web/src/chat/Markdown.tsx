/**
 * Markdown as the agent writes it: GFM (tables, task lists, strikethrough, autolinks) through
 * react-markdown + remark-gfm, raw HTML never rendered. Fenced code is highlighted by highlight.js,
 * which is loaded on first use so it stays out of the initial bundle; so is math (remark-math +
 * rehype-katex, markdown-math.ts), loaded when a text first contains some.
 */
import { memo, useEffect, useMemo, useRef, useState, type ReactElement, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { MAX_PIECE, markdownBlocks } from "./markdown-blocks";

type Highlighter = (code: string, language: string | undefined) => string;
let highlighterPromise: Promise<Highlighter> | undefined;

/** Loads highlight.js (common languages) once. */
function loadHighlighter(): Promise<Highlighter> {
  highlighterPromise ??= import("./highlight").then((module) => module.highlight);
  return highlighterPromise;
}

// Highlighted HTML by language and code, so a block scrolled back into view is not highlighted again.
const highlighted = new Map<string, string>();

/**
 * A fenced code block: plain first, highlighted once highlight.js has loaded and the browser is idle
 * (auto-detecting a language is slow; doing it while rows mount made scrolling stutter).
 */
export function CodeBlock({ code, language }: { code: string; language?: string }) {
  const key = `${language ?? ""}\n${code}`;
  const [, setVersion] = useState(0);
  useEffect(() => {
    if (highlighted.has(key)) return;
    let alive = true;
    const later: (run: () => void) => void =
      (globalThis as { requestIdleCallback?: (run: () => void) => void }).requestIdleCallback ??
      ((run) => setTimeout(run, 1));
    loadHighlighter().then(
      (highlight) =>
        later(() => {
          if (!alive) return;
          highlighted.set(key, highlight(code, language));
          if (highlighted.size > 500) highlighted.delete(highlighted.keys().next().value!);
          setVersion((n) => n + 1);
        }),
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, [key, code, language]);
  // Only the highlighting of this very code: while code streams in, older highlighting is stale.
  const html = highlighted.get(key);
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

type MathPlugins = typeof import("./markdown-math").mathPlugins;
let mathPlugins: MathPlugins | undefined;
let mathPromise: Promise<MathPlugins> | undefined;

/** Loads remark-math + rehype-katex + KaTeX's CSS once (own chunk). */
function loadMath(): Promise<MathPlugins> {
  mathPromise ??= import("./markdown-math").then((module) => (mathPlugins = module.mathPlugins));
  return mathPromise;
}

/** True when `text` may hold math: `$$…$$`, or `$…$` with no space inside the dollars' edges. */
export function hasMath(text: string): boolean {
  return /\$\$[\s\S]+?\$\$|\$[^\s$](?:[^$\n]*[^\s$])?\$/.test(text);
}

/** The math plugins once loaded, loading them (and rendering again) when `needed`. */
function useMath(needed: boolean): MathPlugins | undefined {
  const [, loaded] = useState(0);
  useEffect(() => {
    if (needed && !mathPlugins)
      void loadMath().then(
        () => loaded((n) => n + 1),
        () => undefined,
      );
  }, [needed]);
  return needed ? mathPlugins : undefined;
}

// Rendered Markdown by text: a row scrolled back into view, or a thread opened again, reuses its
// elements instead of parsing again. Insertion order doubles as least-recently-used order.
const rendered = new Map<string, ReactElement>();
const CACHE_SIZE = 1500;

function parse(text: string, math: MathPlugins | undefined): ReactElement {
  return ReactMarkdown({
    children: text,
    remarkPlugins: math ? [remarkGfm, ...math.remark] : [remarkGfm],
    rehypePlugins: math?.rehype,
    components,
  });
}

function renderMarkdown(text: string, math: MathPlugins | undefined): ReactElement {
  const key = `${math ? "m" : "p"}${text}`;
  const element = rendered.get(key) ?? parse(text, math);
  rendered.delete(key);
  rendered.set(key, element);
  if (rendered.size > CACHE_SIZE) rendered.delete(rendered.keys().next().value!);
  return element;
}

type Idle = (callback: (deadline: { timeRemaining(): number }) => void) => number;

/**
 * Parses `texts` (the first ones first) into the cache while the browser is idle, a few at a time, so
 * rows of a long thread scrolled into view for the first time skip parsing. Returns a cancel function.
 */
export function warmMarkdown(texts: readonly string[]): () => void {
  const idle: Idle =
    (globalThis as { requestIdleCallback?: Idle }).requestIdleCallback ??
    ((callback) => setTimeout(() => callback({ timeRemaining: () => 8 }), 1) as unknown as number);
  const cancel: (handle: number) => void =
    (globalThis as { cancelIdleCallback?: (handle: number) => void }).cancelIdleCallback ?? clearTimeout;
  const queue = texts.slice(0, CACHE_SIZE - 100).filter((text) => text && !hasMath(text));
  let next = 0;
  let handle = 0;
  const work = (deadline: { timeRemaining(): number }) => {
    while (next < queue.length && deadline.timeRemaining() > 2) {
      const text = queue[next++]!;
      if (!rendered.has(`p${text}`)) {
        rendered.set(`p${text}`, parse(text, undefined));
        if (rendered.size > CACHE_SIZE) rendered.delete(rendered.keys().next().value!);
      }
    }
    if (next < queue.length) handle = idle(work);
  };
  handle = idle(work);
  return () => cancel(handle);
}

/** One block of a streaming message; memoized, so only the growing last block parses per token. */
const Block = memo(function Block({ text, math }: { text: string; math: MathPlugins | undefined }) {
  return parse(text, math);
});

/**
 * While a message streams, the text to render: the latest, but at most once per interval that grows
 * with the length of what re-parses (parsing a long paragraph on every token fell behind the stream and
 * blocked the page). A finished message always renders its whole, final text at once.
 */
function useStreamedText(text: string, streaming: boolean): string {
  const [shown, setShown] = useState(text);
  const last = useRef(0);
  useEffect(() => {
    if (!streaming) return;
    // The part that re-parses: the last block, at most one piece of it (markdown-blocks.ts).
    const tail = Math.min(MAX_PIECE, text.length - Math.max(text.lastIndexOf("\n\n"), 0));
    const interval = Math.min(1000, Math.max(50, tail / 50));
    const timer = setTimeout(
      () => {
        last.current = performance.now();
        setShown(text);
      },
      Math.max(0, last.current + interval - performance.now()),
    );
    return () => clearTimeout(timer);
  }, [text, streaming]);
  return streaming ? shown : text;
}

/**
 * Renders Markdown text, with math when it has any (KaTeX loads on first use). Memoized: a finished
 * message does not re-render while another streams. While `streaming`, the text is rendered block by
 * block (markdown-blocks.ts), at a bounded rate.
 */
export const Markdown = memo(function Markdown({
  text: latest,
  streaming = false,
}: {
  text: string;
  streaming?: boolean;
}) {
  const text = useStreamedText(latest, streaming);
  const math = useMath(hasMath(text));
  const blocks = useMemo(() => (streaming ? markdownBlocks(text) : []), [text, streaming]);
  return (
    <div className="markdown">
      {streaming
        ? blocks.map((block, index) => <Block key={index} text={block} math={math} />)
        : renderMarkdown(text, math)}
    </div>
  );
});
