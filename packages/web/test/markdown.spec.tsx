/**
 * Markdown as the chat renders it: math through the lazily loaded KaTeX ($inline$ and $$block$$), a
 * broken formula shown instead of breaking the message, and the block-by-block rendering used while a
 * message streams giving the same result as the whole text.
 */
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CodeBlock, hasMath, Markdown } from "../src/chat/Markdown";
import { blockPieces, MAX_PIECE, markdownBlocks } from "../src/chat/markdown-blocks";

afterEach(cleanup);

describe("math", () => {
  it("tells which texts may hold math", () => {
    expect(hasMath("Energy: $E = mc^2$.")).toBe(true);
    expect(hasMath("$$\n\\int_0^1 x\\,dx\n$$")).toBe(true);
    expect(hasMath("It costs $5 and $ 10.")).toBe(false);
    expect(hasMath("No dollars here.")).toBe(false);
  });

  it("renders $inline$ and $$block$$ math with KaTeX once it has loaded", async () => {
    const { container } = render(<Markdown text={"Energy is $E = mc^2$.\n\n$$\n\\frac{a}{b}\n$$\n\nAfter."} />);
    await vi.waitFor(() => expect(container.querySelector(".katex-display")).not.toBeNull(), { timeout: 10_000 });
    expect(container.querySelectorAll(".katex").length).toBe(2);
    expect(container.querySelector(".katex-display .katex-mathml annotation")?.textContent).toContain("\\frac{a}{b}");
    expect(screen.getByText("After.")).toBeTruthy();
  });

  it("a formula KaTeX cannot parse shows its source, and the rest of the message stays", async () => {
    const { container } = render(<Markdown text={"Broken: $\\frac{1$ here. **Bold** stays."} />);
    await vi.waitFor(() => expect(container.querySelector(".katex-error")).not.toBeNull(), { timeout: 10_000 });
    expect(container.querySelector(".katex-error")?.textContent).toContain("\\frac{1");
    expect(container.querySelector("strong")?.textContent).toBe("Bold");
  });
});

describe("streaming Markdown", () => {
  const text =
    "# Title\n\nA paragraph with `code`.\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two";

  it("splits at blank lines outside fenced code", () => {
    const blocks = markdownBlocks(text);
    expect(blocks).toHaveLength(5);
    expect(blocks[2]).toBe("```js\nconst a = 1;\n\nconst b = 2;\n```");
    expect(markdownBlocks("$$\na\n\nb\n$$\n\nafter")).toEqual(["$$\na\n\nb\n$$", "after"]);
  });

  it("cuts a long paragraph into bounded pieces that stay the same as the text grows", () => {
    // One 20,000-word paragraph: without pieces every update re-parsed all of it (over a second near the end).
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`);
    const early = markdownBlocks(`# Title\n\n${words.slice(0, 12_000).join(" ")}`);
    const late = markdownBlocks(`# Title\n\n${words.join(" ")}`);
    expect(late.every((piece) => piece.length <= MAX_PIECE)).toBe(true);
    expect(late.slice(1).join("")).toBe(words.join(" "));
    // Only the last piece of the earlier text may differ later: the others keep their text, so their memoized rows do not parse again.
    expect(late.slice(0, early.length - 1)).toEqual(early.slice(0, -1));
    expect(late.length).toBeGreaterThan(early.length);
  });

  it("cuts at a line break when there is one, and never cuts code, math or a table", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `- item ${i} of a long list`);
    const pieces = blockPieces(lines.join("\n"), 1000);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.slice(0, -1).every((piece) => piece.endsWith("\n"))).toBe(true);
    expect(pieces.join("")).toBe(lines.join("\n"));
    const code = `\`\`\`\n${"x = 1\n".repeat(2000)}\`\`\``;
    expect(markdownBlocks(code, 1000)).toEqual([code]);
    const math = `$$\n${"a + b\n".repeat(2000)}$$`;
    expect(markdownBlocks(math, 1000)).toEqual([math]);
    const table = `| a | b |\n|---|---|\n${"| 1 | 2 |\n".repeat(2000)}`.trimEnd();
    expect(markdownBlocks(table, 1000)).toEqual([table]);
  });

  it("renders block by block the same as the whole text", () => {
    // The same elements; only the line breaks between top-level blocks differ.
    const html = (element: HTMLElement) => element.innerHTML.replace(/>\n</g, "><");
    const whole = html(render(<Markdown text={text} />).container);
    cleanup();
    expect(html(render(<Markdown text={text} streaming />).container)).toBe(whole);
  });
});

describe("code blocks", () => {
  it("are highlighted once highlight.js has loaded, and a changed code shows at once, never an older highlighting", async () => {
    const { container, rerender } = render(<CodeBlock code={"const answer = 42;"} language="ts" />);
    await vi.waitFor(() => expect(container.querySelector("code.hljs .hljs-keyword")?.textContent).toBe("const"), {
      timeout: 10_000,
    });
    rerender(<CodeBlock code={"const answer = 42;\nlet more = 1;"} language="ts" />);
    expect(container.querySelector("code")?.textContent).toBe("const answer = 42;\nlet more = 1;");
    await vi.waitFor(() => expect(container.querySelectorAll("code.hljs .hljs-keyword").length).toBe(2), {
      timeout: 10_000,
    });
  });
});
