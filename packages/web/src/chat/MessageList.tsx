/**
 * The messages of a thread, as a plain list or, from {@link VIRTUALIZE_FROM} messages on, virtualized
 * (`@tanstack/react-virtual`: only the rows near the viewport are in the DOM). Its own component so
 * that a change elsewhere in the chat (composer, plan, banner) does not touch the rows, and so that a
 * component test can stream into it and count renders. Each row is a memoized {@link MessageView}:
 * while the last message streams, the earlier ones do not render at all.
 */
import type { Message } from "@langchain/langgraph-sdk";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from "react";
import type { BatchProgress } from "../harness/batches";
import type { SubagentCard } from "../harness/subagents";
import type { BranchView } from "./branches";
import { estimateHeight } from "./estimate-height";
import { warmMarkdown } from "./Markdown";
import { isShown, textOf, toolCallsOf } from "./messages";
import { MessageView } from "./MessageView";

/** From this many shown messages on, the list renders only what is near the viewport. */
export const VIRTUALIZE_FROM = 150;

/** Props of {@link MessageList}. */
export interface MessageListProps {
  /** Every message of the thread (tool results are paired with their calls, not shown). */
  messages: readonly Message[];
  /** True while a run is going: the last message, when it is the agent's, is the streaming one. */
  running: boolean;
  /** Subagent cards by task call id. */
  cards: Record<string, SubagentCard>;
  /** `batch_task` progress by tool call id. */
  batches?: Record<string, BatchProgress>;
  /** The scrolling element around the list. */
  scroller: RefObject<HTMLDivElement | null>;
  /** The version picker of a message that has siblings. */
  branchOf?: (message: Message) => BranchView | undefined;
  /** The question that can be edited (the latest), and what saving an edit does. */
  editableId?: string;
  onEdit?: (messageId: string, text: string) => Promise<string | undefined>;
}

const NO_CARDS: SubagentCard[] = [];
const NO_BATCHES: BatchProgress[] = [];

/** Renders the thread's messages. */
export function MessageList({
  messages,
  running,
  cards,
  batches = {},
  scroller,
  branchOf,
  editableId,
  onEdit,
}: MessageListProps) {
  const shown = useMemo(() => messages.filter(isShown), [messages]);
  // Tool results only, so pairing a row's calls does not scan the whole thread.
  const results = useMemo(() => messages.filter((m) => m.type === "tool"), [messages]);
  // Only the last shown message can be the streaming one; an earlier answer never flips to running
  // when a new question is sent.
  const streamingIndex = running && shown.at(-1)?.type === "ai" ? shown.length - 1 : -1;
  const cardsOf = (message: Message): SubagentCard[] => {
    const found = ((message as { tool_calls?: { id?: string; name: string }[] }).tool_calls ?? []).flatMap((call) =>
      call.name === "task" && call.id && cards[call.id] ? [cards[call.id]!] : [],
    );
    return found.length > 0 ? found : NO_CARDS;
  };
  const batchesOf = (message: Message): BatchProgress[] => {
    const found = ((message as { tool_calls?: { id?: string; name: string }[] }).tool_calls ?? []).flatMap((call) =>
      call.name === "batch_task" && call.id && batches[call.id] ? [batches[call.id]!] : [],
    );
    return found.length > 0 ? found : NO_BATCHES;
  };
  const row = (message: Message, index: number, key?: string | number) => (
    <MessageView
      key={key}
      message={message}
      tools={toolCallsOf(message, results)}
      running={index === streamingIndex}
      subagents={cardsOf(message)}
      batches={batchesOf(message)}
      branch={branchOf?.(message)}
      onEdit={message.id !== undefined && message.id === editableId ? onEdit : undefined}
    />
  );

  const list = useRef<HTMLDivElement>(null);
  const virtual = shown.length >= VIRTUALIZE_FROM;
  // Where the list starts inside the scroller, read after layout (reading it while rendering forced a
  // layout on every scroll frame).
  const [margin, setMargin] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the offset changes when the list switches to virtual rows
  useLayoutEffect(() => setMargin(list.current?.offsetTop ?? 0), [virtual]);
  const estimates = useRef(new WeakMap<Message, number>());
  // Stable callbacks: the virtualizer recomputes every row's position whenever getItemKey changes.
  const getItemKey = useCallback((index: number) => shown[index]?.id ?? index, [shown]);
  const estimateSize = useCallback(
    (index: number) => {
      // A close first guess from the text's length keeps the corrections made by measuring small.
      const message = shown[index];
      if (!message) return 96;
      let height = estimates.current.get(message);
      if (height === undefined)
        estimates.current.set(
          message,
          (height = estimateHeight(
            textOf(message.content),
            message.type === "human",
            scroller.current?.clientWidth ?? 720,
          )),
        );
      return height;
    },
    [shown, scroller],
  );
  const virtualizer = useVirtualizer({
    count: virtual ? shown.length : 0,
    getScrollElement: () => scroller.current,
    estimateSize,
    overscan: 4,
    getItemKey,
    scrollMargin: margin,
  });
  // Parse the Markdown of a long thread while the browser is idle, so rows scrolled into view reuse it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: warm again only when messages are added, not on every new array
  useEffect(() => {
    if (virtual) return warmMarkdown(shown.flatMap((m) => (m.type === "ai" ? [textOf(m.content)] : [])).reverse());
  }, [virtual, shown.length]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll only when a message arrives or a run starts or ends
  useEffect(() => {
    if (virtual) virtualizer.scrollToIndex(shown.length - 1, { align: "end" });
  }, [shown.length, running]);

  if (!virtual) return <>{shown.map((message, index) => row(message, index, message.id ?? index))}</>;
  return (
    <div ref={list} className="virtual-list" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => (
        <div
          key={item.key}
          ref={virtualizer.measureElement}
          data-index={item.index}
          className="virtual-row"
          style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
        >
          {row(shown[item.index]!, item.index)}
        </div>
      ))}
    </div>
  );
}
