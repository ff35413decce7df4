/**
 * Runs one variant for N turns in its own process and prints one JSON line: checkpoint file sizes at
 * the checkpoints asked for, request tokens, and the process's peak RSS. One process per variant, so
 * the variants' memory does not mix.
 *
 * Usage: node --import tsx bench/variant.ts <variant> <turns> <dir> [sizeAt,... | every]
 * `every` samples the file after every turn (for a per-turn slope).
 */
import { buildVariant, type VariantName } from "./scenario.js";
import { checkpointRows, sqliteBytes } from "./measure.js";

const [name, turnsText, dir, sizeAtText = ""] = process.argv.slice(2);
const turns = Number(turnsText);
const every = sizeAtText === "every";
const sizeAt = new Set(sizeAtText.split(",").filter(Boolean).map(Number));
const variant = await buildVariant(name as VariantName, dir!);
const sizes: Record<number, number> = {};
const rows: Record<number, number> = {};
const started = performance.now();
for (let turn = 1; turn <= turns; turn++) {
  await variant.turn(turn);
  if (every || sizeAt.has(turn)) {
    sizes[turn] = sqliteBytes(variant.file);
    rows[turn] = checkpointRows(variant.file);
  }
}
const elapsedMs = performance.now() - started;
const tokens = variant.recorder.requestTokens;
await variant.close();
process.stdout.write(
  `${JSON.stringify({
    name,
    turns,
    elapsedMs,
    sizes,
    rows,
    newMessageBytesPerTurn: variant.recorder.newMessageBytes / turns,
    peakRequestTokens: Math.max(...tokens),
    peakConversationTokens: Math.max(...variant.recorder.conversationTokens),
    totalRequestTokens: tokens.reduce((a, b) => a + b, 0),
    modelCalls: tokens.length,
    summarizerCalls: variant.recorder.summarizerCalls,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
