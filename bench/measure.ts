/** Small statistics and file-size helpers for the benchmarks. */
import { existsSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import type { Recorder } from "./scenario.js";

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1) + 0.5))]!;
}

/**
 * Harness time between consecutive model calls of the same turn (previous call's end to next call's
 * start, minus the tool time in between). `turnStarts` holds the index of each turn's first call.
 */
export function stepOverheads(recorder: Recorder, turnStarts: readonly number[]): number[] {
  const starts = new Set(turnStarts);
  const gaps: number[] = [];
  for (let i = 1; i < recorder.calls.length; i++) {
    if (starts.has(i)) continue;
    gaps.push(recorder.calls[i]![0] - recorder.calls[i - 1]![1] - recorder.toolGaps[i]!);
  }
  return gaps;
}

/** Bytes of a SQLite database after folding its WAL back into the main file. */
export function sqliteBytes(file: string): number {
  if (!existsSync(file)) return 0;
  const db = new Database(file);
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  const wal = `${file}-wal`;
  return statSync(file).size + (existsSync(wal) ? statSync(wal).size : 0);
}

/**
 * Bytes added per turn over turns (from, to]: the least-squares slope of file size against turn. Less
 * sensitive than two endpoints to where a sample falls in the summarization cycle.
 */
export function bytesPerTurnSlope(sizes: Record<string, number>, from: number, to: number): number {
  const points = Object.entries(sizes)
    .map(([turn, bytes]) => [Number(turn), bytes] as const)
    .filter(([turn]) => turn >= from && turn <= to);
  if (points.length < 3) return ((sizes[to] ?? Number.NaN) - (sizes[from] ?? Number.NaN)) / (to - from);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const mx = mean(points.map(([x]) => x));
  const my = mean(points.map(([, y]) => y));
  const num = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const den = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return num / den;
}

/** Rows in the `checkpoints` table (0 when the file or table does not exist). */
export function checkpointRows(file: string): number {
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get();
    return table ? (db.prepare("SELECT COUNT(*) AS n FROM checkpoints").get() as { n: number }).n : 0;
  } finally {
    db.close();
  }
}
