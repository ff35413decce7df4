/**
 * The bar under the last answer once a run is over: follow-up suggestions as chips (a click sends
 * one), thumbs up or down on the answer's run with an optional comment, and Export (Markdown or JSON).
 * Each part hides itself when the server says nothing about it (suggestions off, no run id).
 */
import type { Message } from "@langchain/langgraph-sdk";
import { Download, RefreshCw, Sparkles, ThumbsDown, ThumbsUp } from "lucide-react";
import { useEffect, useState } from "react";
import { errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import {
  clearFeedback,
  downloadExport,
  type Feedback,
  fetchSuggestions,
  readFeedback,
  runOfLastTurn,
  saveFeedback,
  suggestionsConfig,
} from "./answer-actions";

/** Props of {@link AnswerActions}. */
export interface AnswerActionsProps {
  threadId: string;
  messages: readonly Message[];
  apiKey: string | undefined;
  /** The model the chat uses, for the suggestions call. */
  model: string | undefined;
  onSuggestion: (text: string) => void;
  /** Asks for a new answer to the last question (the current one stays as an earlier version). */
  onRegenerate?: () => Promise<string | undefined>;
}

/** Renders the bar; put it after the messages while no run is going. */
export function AnswerActions({ threadId, messages, apiKey, model, onSuggestion, onRegenerate }: AnswerActionsProps) {
  useLocale();
  const lastAnswer = [...messages].reverse().find((message) => message.type === "ai" && message.id);
  const answerId = lastAnswer?.id;
  const runId = runOfLastTurn(messages);
  const [suggestions, setSuggestions] = useState<string[]>([]);
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const [rating, setRating] = useState<1 | -1 | null>(null);
  const [comment, setComment] = useState("");
  const [problem, setProblem] = useState<string>();
  const [exportOpen, setExportOpen] = useState(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: asked once per answer, not per message object
  useEffect(() => {
    setSuggestions([]);
    if (!answerId) return;
    const controller = new AbortController();
    void suggestionsConfig(apiKey)
      .then((config) => fetchSuggestions(threadId, messages, config, model, apiKey, controller.signal))
      .then(setSuggestions)
      .catch(() => setSuggestions([]));
    return () => controller.abort();
  }, [threadId, answerId]);

  useEffect(() => {
    setFeedback(null);
    setRating(null);
    setProblem(undefined);
    if (!runId) return;
    let live = true;
    void readFeedback(threadId, runId, apiKey)
      .then((found) => live && setFeedback(found))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [threadId, runId, apiKey]);

  if (!answerId) return null;

  const thumb = async (value: 1 | -1) => {
    if (!runId) return;
    setProblem(undefined);
    try {
      if (feedback?.rating === value) {
        await clearFeedback(threadId, runId, apiKey);
        setFeedback(null);
        setRating(null);
        return;
      }
      setFeedback(await saveFeedback(threadId, runId, value, "", apiKey));
      setRating(value);
      setComment("");
    } catch (error) {
      setProblem(errorDetail(error));
    }
  };
  const sendComment = async () => {
    if (!runId || rating === null) return;
    try {
      setFeedback(await saveFeedback(threadId, runId, rating, comment.trim(), apiKey));
      setRating(null);
    } catch (error) {
      setProblem(errorDetail(error));
    }
  };
  const exportAs = async (format: "md" | "json") => {
    setExportOpen(false);
    try {
      await downloadExport(threadId, format, apiKey);
    } catch (error) {
      setProblem(errorDetail(error));
    }
  };

  return (
    <div className="answer-actions" data-testid="answer-actions">
      <div className="answer-bar">
        {runId && (
          <>
            <button
              type="button"
              className={`icon-btn${feedback?.rating === 1 ? " active" : ""}`}
              aria-pressed={feedback?.rating === 1}
              aria-label={t("answer.thumbsUp")}
              title={t("answer.thumbsUp")}
              onClick={() => void thumb(1)}
            >
              <ThumbsUp size={14} aria-hidden />
            </button>
            <button
              type="button"
              className={`icon-btn${feedback?.rating === -1 ? " active" : ""}`}
              aria-pressed={feedback?.rating === -1}
              aria-label={t("answer.thumbsDown")}
              title={t("answer.thumbsDown")}
              onClick={() => void thumb(-1)}
            >
              <ThumbsDown size={14} aria-hidden />
            </button>
          </>
        )}
        {onRegenerate && (
          <button
            type="button"
            className="icon-btn"
            onClick={() => {
              setProblem(undefined);
              void onRegenerate().then((error) => error && setProblem(error));
            }}
          >
            <RefreshCw size={14} aria-hidden /> {t("versions.regenerate")}
          </button>
        )}
        <div className="export-menu">
          <button
            type="button"
            className="icon-btn"
            aria-expanded={exportOpen}
            onClick={() => setExportOpen(!exportOpen)}
          >
            <Download size={14} aria-hidden /> {t("answer.export")}
          </button>
          {exportOpen && (
            <div className="menu" role="menu">
              <button type="button" role="menuitem" onClick={() => void exportAs("md")}>
                {t("answer.exportMarkdown")}
              </button>
              <button type="button" role="menuitem" onClick={() => void exportAs("json")}>
                {t("answer.exportJson")}
              </button>
            </div>
          )}
        </div>
        {feedback && rating === null && <span className="muted small">{t("answer.thanks")}</span>}
      </div>
      {rating !== null && (
        <form
          className="feedback-comment"
          onSubmit={(event) => {
            event.preventDefault();
            void sendComment();
          }}
        >
          <input
            value={comment}
            maxLength={4000}
            placeholder={t("answer.commentPlaceholder")}
            aria-label={t("answer.commentPlaceholder")}
            onChange={(event) => setComment(event.target.value)}
          />
          <button type="submit">{t("answer.commentSend")}</button>
        </form>
      )}
      {problem && (
        <div className="error-text small" role="alert">
          {problem}
        </div>
      )}
      {suggestions.length > 0 && (
        <fieldset className="suggestions" aria-label={t("answer.suggestions")}>
          {suggestions.map((text) => (
            <button key={text} type="button" className="chip suggestion" onClick={() => onSuggestion(text)}>
              <Sparkles size={12} aria-hidden /> {text}
            </button>
          ))}
        </fieldset>
      )}
    </div>
  );
}
