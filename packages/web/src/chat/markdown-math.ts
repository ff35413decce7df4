/**
 * Math in Markdown (`$inline$`, `$$block$$`): remark-math parses it, rehype-katex renders it with
 * KaTeX, and KaTeX's stylesheet (with its fonts) comes along. Imported lazily by Markdown.tsx, only
 * once a message contains dollar signs, so KaTeX stays out of the initial bundle.
 */
import "katex/dist/katex.min.css";
import rehypeKatex from "rehype-katex";
import remarkMath from "remark-math";
import type { Options } from "react-markdown";

type PluggableList = NonNullable<Options["remarkPlugins"]>;

/** The plugins Markdown.tsx adds when a text has math. */
export const mathPlugins: { remark: PluggableList; rehype: PluggableList } = {
  remark: [remarkMath],
  // A formula KaTeX cannot parse shows as its source in red instead of breaking the message.
  rehype: [[rehypeKatex, { throwOnError: false, strict: false }]],
};
