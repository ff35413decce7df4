/**
 * Thumbs up or down on a run's answer, with an optional comment (DeerFlow's feedback routes). A person
 * has at most one feedback per run and message (none: the run as a whole); giving it again replaces it.
 * Every read and write names the owner, so nobody sees or changes another person's feedback.
 */

/** One stored feedback, as the routes answer it (DeerFlow's `FeedbackResponse`). */
export interface Feedback {
  feedback_id: string;
  run_id: string;
  thread_id: string;
  user_id: string | null;
  message_id: string | null;
  rating: 1 | -1;
  comment: string | null;
  created_at: string;
}

/** What a person gives. */
export interface FeedbackInput {
  thread_id: string;
  run_id: string;
  rating: 1 | -1;
  comment: string | null;
  message_id: string | null;
}

/** Feedback in the thread database (SQLite or Postgres). `owner` null is the home's local user. */
export interface FeedbackStore {
  /** Records `input` for `owner`, replacing their feedback on the same run and message. */
  upsert(owner: string | null, input: FeedbackInput): Promise<Feedback>;
  /** The owner's feedback on a run, oldest first. */
  list(owner: string | null, threadId: string, runId: string): Promise<Feedback[]>;
  /** Deletes the owner's run-level feedback (no message); false when there was none. */
  deleteForRun(owner: string | null, threadId: string, runId: string): Promise<boolean>;
  /** Deletes one of the owner's feedbacks on that run; false when it is not theirs or not there. */
  delete(owner: string | null, threadId: string, runId: string, feedbackId: string): Promise<boolean>;
  /** Removes every feedback on a thread (the thread was deleted). */
  deleteForThread(threadId: string): Promise<void>;
  close(): void;
}

/** The key a missing owner or message is stored under (SQL unique keys treat NULLs as distinct). */
export const NONE = "";

/** A stored row as a Feedback. */
export function feedbackOf(row: {
  feedback_id: string;
  run_id: string;
  thread_id: string;
  owner: string;
  message_id: string;
  rating: number;
  comment: string | null;
  created_at: string;
}): Feedback {
  return {
    feedback_id: row.feedback_id,
    run_id: row.run_id,
    thread_id: row.thread_id,
    user_id: row.owner === NONE ? null : row.owner,
    message_id: row.message_id === NONE ? null : row.message_id,
    rating: row.rating > 0 ? 1 : -1,
    comment: row.comment,
    created_at: row.created_at,
  };
}
