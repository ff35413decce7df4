/**
 * The chat of one thread, driven by the SDK's `useStream`: it loads the thread's state, streams a run
 * token by token, rejoins a running run after a reload (`reconnectOnMount`), and stops it (Stop also
 * cancels the run on the server). Around the messages it shows what the harness does: the plan,
 * subagent cards (from `custom` events), the clarification question, tool calls waiting for approval,
 * the summary notice, and a run error with Retry. Artifacts open in the side panel owned by the parent. The messages themselves are
 * rendered by {@link MessageList} (virtualized for long threads).
 */
import type { Client, Message } from "@langchain/langgraph-sdk";
import { useStream } from "@langchain/langgraph-sdk/react";
import { AlertCircle, FileText, RotateCcw } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { errorDetail, isUnauthorized } from "../api";
import { Approvals, pendingApprovals } from "../harness/Approval";
import { t, useLocale } from "../i18n";
import { Clarification } from "../harness/Clarification";
import { Plan, type Todo } from "../harness/Plan";
import { RunChanges } from "../harness/RunChanges";
import { Subagents } from "../harness/Subagents";
import { applyBatchEvent, type BatchProgress } from "../harness/batches";
import {
  applyTaskEvent,
  cardsFromState,
  type SavedDelegation,
  type SubagentCard,
  withSavedVerification,
} from "../harness/subagents";
import { runContext, type Settings } from "../settings/settings";
import { Composer, type SendResult } from "./Composer";
import { compactNotice, compactThread, isCompactCommand } from "./compact";
import { type Goal, type GoalCommand, newGoal } from "./goal";
import { GoalBanner } from "./GoalBanner";
import type { ConversationRef } from "./ReferencePicker";
import { uploadFiles } from "./uploads";
import { MessageList } from "./MessageList";
import { AnswerActions } from "./AnswerActions";
import {
  BRANCH_HISTORY_LIMIT,
  type BranchView,
  branchView,
  markBranched,
  type PreparedReplay,
  prepareEdit,
  prepareRegenerate,
} from "./branches";
import { isShown, latestTokenUsage, pendingClarification } from "./messages";

/** The thread state the app reads (the harness's ThreadState, as JSON). */
export interface AgentState extends Record<string, unknown> {
  messages: Message[];
  title?: string | null;
  todos?: Todo[] | null;
  artifacts?: string[];
  summary_text?: string | null;
  delegations?: SavedDelegation[];
  goal?: Goal | null;
}

/** Props of {@link Chat}. */
export interface ChatProps {
  client: Client;
  apiKey: string | undefined;
  threadId: string | null;
  settings: Settings;
  onThreadCreated: (threadId: string) => void;
  onRunFinished: () => void;
  onUnauthorized: () => void;
  onState: (state: { title?: string | null; artifacts: string[]; tokens?: number }) => void;
  onOpenArtifact: (path: string) => void;
  /** The user's conversations, for the composer's reference picker. */
  conversations?: readonly { id: string; title: string }[];
  /** The thread has earlier versions of a turn (`metadata.has_versions`): read its history for the picker. */
  versioned?: boolean;
}

/** Renders the chat. */
export function Chat({
  client,
  apiKey,
  threadId,
  settings,
  onThreadCreated,
  onRunFinished,
  onUnauthorized,
  onState,
  onOpenArtifact,
  conversations,
  versioned = false,
}: ChatProps) {
  const [cards, setCards] = useState<Record<string, SubagentCard>>({});
  const [batches, setBatches] = useState<Record<string, BatchProgress>>({});
  const created = useRef<string | null>(null);
  const currentRun = useRef<{ run_id: string; thread_id: string } | undefined>(undefined);
  /**
   * The send the composer is waiting on: settled when the run is created, or with the server's reason
   * when it refused to start one (a quota's 429, say). `messageId` is its optimistic message.
   */
  const pendingSend = useRef<{ messageId: string; settle: (result: SendResult) => void } | undefined>(undefined);
  const refusal = useRef<unknown>(undefined);
  const [refusedIds, setRefusedIds] = useState<ReadonlySet<string>>(() => new Set());
  const [compacted, setCompacted] = useState<string>();
  // A regenerate or edit sent from this tab: from now on the chat reads the thread's history too.
  const [branchedHere, setBranchedHere] = useState(false);
  useLocale();
  const stream = useStream<AgentState>({
    client,
    assistantId: "lead_agent",
    threadId,
    reconnectOnMount: true,
    // Coalesce stream updates into one render per 50 ms: without it every token re-renders the chat
    // synchronously, and the hook's own work per render grows with the thread (docs/benchmarks.md).
    throttle: 50,
    // Versions (the branch picker) come from the checkpoint history, read only for a thread that has
    // them and only its newest checkpoints; other threads load just their state (docs/web.md).
    fetchStateHistory: versioned || branchedHere ? { limit: BRANCH_HISTORY_LIMIT } : false,
    onThreadId: (id) => {
      created.current = id;
      onThreadCreated(id);
    },
    onCreated: (run) => {
      currentRun.current = run;
      pendingSend.current?.settle();
    },
    onCustomEvent: (data) => {
      setCards((current) => applyTaskEvent(current, data));
      setBatches((current) => applyBatchEvent(current, data));
    },
    onError: (error, run) => {
      // No run yet: the server refused to start it. The composer shows why and keeps the text.
      const pending = pendingSend.current;
      if (!run && pending) {
        refusal.current = error;
        setRefusedIds((ids) => new Set(ids).add(pending.messageId));
        pending.settle({ error: errorDetail(error) });
      }
      if (isUnauthorized(error)) onUnauthorized();
    },
    onFinish: () => onRunFinished(),
  });

  // A different thread (not the one this chat just created) starts with no subagent cards.
  useEffect(() => {
    if (threadId !== created.current) {
      setCards({});
      setBatches({});
      setBranchedHere(false);
    }
    setCompacted(undefined);
  }, [threadId]);

  // `/compact` is not sent to the model: the gateway summarizes the thread's older messages now.
  const compact = async (): Promise<SendResult> => {
    if (!threadId) return { error: t("chat.nothingToCompactNew") };
    try {
      setCompacted(compactNotice(await compactThread(threadId, apiKey, settings.model || undefined)));
    } catch (error) {
      if (isUnauthorized(error)) onUnauthorized();
      return { error: errorDetail(error) };
    }
  };

  // A refused message never reached the server; the SDK keeps showing its optimistic copy, so hide it.
  const messages = useMemo(
    () => (refusedIds.size === 0 ? stream.messages : stream.messages.filter((m) => !refusedIds.has(m.id ?? ""))),
    [stream.messages, refusedIds],
  );
  const values = stream.values;
  const running = stream.isLoading;
  const artifacts = values?.artifacts ?? [];
  const tokens = latestTokenUsage(messages);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the artifact list's content, not its identity
  useEffect(() => {
    onState({ title: values?.title, artifacts, tokens });
  }, [values?.title, artifacts.join("\n"), tokens]);

  // A goal this tab just set or cleared (undefined: the thread state's), until a run brings the state's copy.
  const [goalSet, setGoalSet] = useState<Goal | null | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new state copy (a run's values) replaces the local one
  useEffect(() => setGoalSet(undefined), [values?.goal?.set_at]);
  const goal = goalSet !== undefined ? goalSet : values?.goal;
  const runGoal = async (command: GoalCommand): Promise<string | undefined> => {
    if (command.kind === "show") return goal ? undefined : t("chat.noGoal");
    const next = command.kind === "clear" ? null : newGoal(command.objective);
    if (next && "error" in next) return next.error;
    try {
      // A goal set before the first message makes the thread, as sending would.
      let target = threadId;
      if (!target) {
        if (next === null) return undefined;
        target = (await client.threads.create()).thread_id;
        created.current = target;
        onThreadCreated(target);
      }
      await client.threads.updateState(target, { values: { goal: next } });
      setGoalSet(next);
      return undefined;
    } catch (error) {
      if (isUnauthorized(error)) onUnauthorized();
      return errorDetail(error);
    }
  };

  const send = async (text: string, files: File[] = [], refs: ConversationRef[] = []): Promise<SendResult> => {
    if (files.length === 0 && isCompactCommand(text)) return compact();
    setCompacted(undefined);
    // Files go up first (to a new thread's id when there is no thread yet); a refusal keeps the draft.
    let target = threadId;
    let attached: { filename: string; size: number; path?: string }[] = [];
    if (files.length > 0) {
      target ??= crypto.randomUUID();
      const outcome = await uploadFiles(target, files, apiKey);
      if (Object.keys(outcome.refused).length > 0) return { refused: outcome.refused };
      attached = outcome.stored.map((file) => ({
        filename: file.filename,
        size: file.size,
        path: file.virtual_path ?? file.path,
      }));
    }
    // An id of our own keeps the message's key (and its rendered row) when the server echoes it back.
    const kwargs = {
      ...(attached.length > 0 ? { files: attached } : {}),
      ...(refs.length > 0 ? { conversation_refs: refs } : {}),
    };
    const message = {
      type: "human" as const,
      id: crypto.randomUUID(),
      content: text,
      ...(Object.keys(kwargs).length > 0 ? { additional_kwargs: kwargs } : {}),
    };
    // The composer keeps the text until the server accepted the run (see `pendingSend`).
    const outcome = new Promise<SendResult>((resolve) => {
      pendingSend.current = {
        messageId: message.id,
        settle: (result) => {
          pendingSend.current = undefined;
          resolve(result);
        },
      };
    });
    const submitted = stream.submit(
      { messages: [message] },
      {
        ...(target && !threadId ? { threadId: target } : {}),
        context: runContext(settings),
        streamResumable: true,
        onDisconnect: "continue",
        optimisticValues: (prev) => ({ ...prev, messages: [...(prev.messages ?? []), message as Message] }),
      },
    );
    // Should the stream end without either (it never does today), the composer is not left waiting.
    void Promise.resolve(submitted).finally(() => pendingSend.current?.settle());
    return outcome;
  };
  // Stop ends the stream here and cancels the run on the server (the run id comes from the run this
  // tab started, or from the SDK's reconnect record after a reload; else the thread's active runs).
  const stop = () => {
    const tid = currentRun.current?.thread_id ?? threadId;
    const rid = currentRun.current?.run_id ?? (tid ? sessionStorage.getItem(`lg:stream:${tid}`) : null);
    void stream.stop();
    if (!tid) return;
    if (rid) {
      client.runs.cancel(tid, rid).catch(() => undefined);
      return;
    }
    // Stopped before the run's id arrived: cancel whatever this thread still has running or queued.
    void client.runs
      .list(tid, { limit: 10 })
      .then((runs) =>
        Promise.all(
          runs
            .filter((run) => run.status === "pending" || run.status === "running")
            .map((run) => client.runs.cancel(tid, run.run_id)),
        ),
      )
      .catch(() => undefined);
  };
  // The stream of the latest render: a replay submits after awaiting, when history may have been turned on.
  const latestStream = useRef(stream);
  latestStream.current = stream;
  // Regenerate and edit: the server prepares the replay, the run goes from the checkpoint it names.
  const replay = async (prepare: (threadId: string) => Promise<PreparedReplay>): Promise<string | undefined> => {
    if (!threadId) return undefined;
    try {
      const prepared = await prepare(threadId);
      setBranchedHere(true);
      await markBranched(client, threadId);
      const replayed = (prepared.input.messages ?? []) as Message[];
      void latestStream.current.submit(prepared.input, {
        checkpoint: prepared.checkpoint,
        metadata: prepared.metadata,
        context: runContext(settings),
        streamResumable: true,
        onDisconnect: "continue",
        // Until the run's first state arrives, show the thread without the turn being replaced.
        optimisticValues: (prev) => {
          const kept = prev.messages ?? [];
          const cut = kept.findLastIndex((message) => message.type === "human");
          return { ...prev, messages: [...(cut === -1 ? kept : kept.slice(0, cut)), ...replayed] };
        },
      });
      return undefined;
    } catch (error) {
      if (isUnauthorized(error)) onUnauthorized();
      return errorDetail(error);
    }
  };
  const replayRef = useRef(replay);
  replayRef.current = replay;
  const edit = useCallback(
    (messageId: string, text: string) =>
      replayRef.current((thread) => prepareEdit(thread, messageId, text.trim(), apiKey)),
    [apiKey],
  );
  const retry = () =>
    void stream.submit(null, { context: runContext(settings), streamResumable: true, onDisconnect: "continue" });
  // Answers the tool calls waiting for approval; the run goes on from its interrupt.
  const resume = (value: unknown) =>
    void stream.submit(null, {
      command: { resume: value },
      context: runContext(settings),
      streamResumable: true,
      onDisconnect: "continue",
    });

  const shown = useMemo(() => messages.filter(isShown), [messages]);
  const latestAnswer = shown.findLast((message) => message.type === "ai" && message.id);
  const latestQuestion = shown.findLast((message) => message.type === "human" && message.id);
  // The version picker of each message that has earlier versions (only for a thread that has them).
  const branches = new Map<string, BranchView>();
  if (versioned || branchedHere) {
    for (const message of shown) {
      if (!message.id) continue;
      const view = branchView(
        stream.getMessagesMetadata(message) as Parameters<typeof branchView>[0],
        stream.setBranch,
      );
      if (view) branches.set(message.id, view);
    }
  }
  const branchOf = (message: Message) => (message.id ? branches.get(message.id) : undefined);
  // An earlier version in view (a picker not on its newest): Regenerate and Edit act on the newest only.
  const newest = [...branches.values()].every((view) => view.index === view.total - 1);
  const editableId =
    newest &&
    !running &&
    threadId &&
    latestAnswer &&
    latestQuestion &&
    shown.indexOf(latestAnswer) > shown.indexOf(latestQuestion)
      ? latestQuestion.id
      : undefined;
  const clarification = running ? undefined : pendingClarification(messages);
  const approvals = running ? [] : pendingApprovals(stream.interrupts);
  // Live cards from this session's events win over the ones saved in state (a thread opened later).
  const allCards = useMemo(
    () => ({ ...withSavedVerification(cardsFromState(values?.delegations), messages), ...cards }),
    [values?.delegations, messages, cards],
  );
  const taskCallIds = new Set(
    messages.flatMap((m) =>
      ((m as { tool_calls?: { id?: string; name: string }[] }).tool_calls ?? [])
        .filter((c) => c.name === "task")
        .map((c) => c.id),
    ),
  );
  const cardList = Object.values(allCards).filter((card) => !taskCallIds.has(card.id));
  const bottom = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll only when a message arrives or a run starts or ends
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [messages.length, running]);

  const error = stream.error;
  return (
    <div className="chat">
      <div className="messages" aria-live="polite" ref={scroller}>
        {shown.length === 0 && !running && (
          <div className="empty">
            <h1>{t("chat.emptyTitle")}</h1>
            <p className="muted">{t("chat.emptyHint")}</p>
          </div>
        )}
        <GoalBanner goal={goal} onClear={() => void runGoal({ kind: "clear" })} />
        {values?.summary_text && (
          <div className="notice" data-testid="summary-notice">
            {t("chat.summarised")}
          </div>
        )}
        <MessageList
          messages={messages}
          running={running}
          cards={allCards}
          batches={batches}
          scroller={scroller}
          branchOf={branchOf}
          editableId={editableId}
          onEdit={edit}
        />
        {compacted && (
          <div className="notice" role="status" data-testid="compact-notice">
            {compacted}
          </div>
        )}
        <Plan todos={values?.todos} />
        <Subagents cards={cardList} />
        {!running && artifacts.length > 0 && (
          <div className="artifact-chips">
            {artifacts.map((path) => (
              <button key={path} type="button" className="chip" onClick={() => onOpenArtifact(path)}>
                <FileText size={14} aria-hidden /> {path.split("/").pop()}
              </button>
            ))}
          </div>
        )}
        {!running && threadId && !clarification && approvals.length === 0 && (
          <AnswerActions
            threadId={threadId}
            messages={messages}
            apiKey={apiKey}
            model={settings.model || undefined}
            onSuggestion={(text) => void send(text)}
            onRegenerate={
              latestAnswer?.id && newest
                ? () => replay((thread) => prepareRegenerate(thread, latestAnswer.id!, apiKey))
                : undefined
            }
          />
        )}
        <RunChanges client={client} apiKey={apiKey} threadId={threadId} running={running} onOpen={onOpenArtifact} />
        {clarification && <Clarification request={clarification} onAnswer={(answer) => void send(answer)} />}
        {approvals.length > 0 && (
          <Approvals
            key={approvals.map((approval) => approval.interruptId).join(" ")}
            approvals={approvals}
            onResume={resume}
          />
        )}
        {running && (
          <div className="working muted" data-testid="working">
            <span className="dot" /> {t("chat.working")}
          </div>
        )}
        {error != null && !running && !isUnauthorized(error) && error !== refusal.current && (
          <div className="run-error" role="alert" data-testid="run-error">
            <AlertCircle size={16} aria-hidden /> <span>{errorDetail(error)}</span>
            <button type="button" onClick={retry}>
              <RotateCcw size={14} aria-hidden /> {t("chat.retry")}
            </button>
          </div>
        )}
        <div ref={bottom} />
      </div>
      <Composer
        draftKey={threadId ?? "new"}
        running={running}
        onSend={send}
        onStop={stop}
        onGoal={runGoal}
        conversations={conversations?.filter((conversation) => conversation.id !== threadId)}
      />
    </div>
  );
}
