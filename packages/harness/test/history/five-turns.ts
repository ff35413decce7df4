/**
 * The five user lines both history tests (SQLite and Postgres) send before summarization compacts the
 * thread; the first holds the fact that `search_history` must find again afterwards.
 */
export const FIVE_TURNS = [
  "My locker code is 8812.",
  "I like tea.",
  "Weather is nice.",
  "Done for today.",
  "One more thing.",
] as const;
