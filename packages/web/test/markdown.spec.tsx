/**
 * Markdown as the chat renders it: math through the lazily loaded KaTeX ($inline$ and $$block$$), a
 * broken formula shown instead of breaking the message, and the block-by-block rendering used while a
 * message streams giving the same result as the whole text.
 */
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CodeBlock, hasMath, Markdown } from "../src/chat/Markdown";
import { markdownBlocks } from "../src/chat/markdown-blocks";

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
  const text = "# Title\n\nA paragraph with `code`.\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two";

  it("splits at blank lines outside fenced code", () => {
    const blocks = markdownBlocks(text);
    expect(blocks).toHaveLength(5);
    expect(blocks[2]).toBe("```js\nconst a = 1;\n\nconst b = 2;\n```");
    expect(markdownBlocks("$$\na\n\nb\n$$\n\nafter")).toEqual(["$$\na\n\nb\n$$", "after"]);
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
    await vi.waitFor(() => expect(container.querySelector("code.hljs .hljs-keyword")?.textContent).toBe("const"), { timeout: 10_000 });
    rerender(<CodeBlock code={"const answer = 42;\nlet more = 1;"} language="ts" />);
    expect(container.querySelector("code")?.textContent).toBe("const answer = 42;\nlet more = 1;");
    await vi.waitFor(() => expect(container.querySelectorAll("code.hljs .hljs-keyword").length).toBe(2), { timeout: 10_000 });
  });
});
