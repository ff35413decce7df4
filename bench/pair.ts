/**
 * A quick (a)-against-(d) check for iterating on harness overhead: the two variants interleaved in
 * rounds, as `npm run bench` does, and only the per-step and per-turn medians printed. Not a substitute
 * for the full run; the figures on docs/benchmarks.md come from bench/run.ts.
 *
 * Usage: node --import tsx bench/pair.ts [turns=40] [variants=deerflow,summarizing]
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { median, stepOverheads } from "./measure.js";
import { buildVariant, type Variant, type VariantName } from "./scenario.js";

const turns = Number(process.argv[2] ?? 40);
const names = (process.argv[3] ?? "deerflow,summarizing").split(",") as VariantName[];
const ROUND = 10;
const scratch = mkdtempSync(path.join(os.tmpdir(), "deerflow-pair-"));
const variants = await Promise.all(names.map((name) => buildVariant(name, path.join(scratch, name))));
const starts = new Map<Variant, number[]>(variants.map((v) => [v, []]));
const overheads = new Map<Variant, number[]>(variants.map((v) => [v, []]));
// CPU time of the process per turn: steadier than wall time when other processes share the cores.
const cpu = new Map<Variant, number[]>(variants.map((v) => [v, []]));
for (let done = 0; done < turns; done += ROUND) {
  for (const variant of variants) {
    for (let turn = done + 1; turn <= done + ROUND; turn++) {
      const first = variant.recorder.calls.length;
      starts.get(variant)!.push(first);
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      await variant.turn(turn);
      const used = process.cpuUsage(cpuStart);
      cpu.get(variant)!.push((used.user + used.system) / 1000);
      const wall = performance.now() - start;
      const modelMs = variant.recorder.calls.slice(first).reduce((sum, [a, b]) => sum + (b - a), 0);
      const toolMs = variant.recorder.toolGaps.slice(first + 1).reduce((a, b) => a + b, 0);
      overheads.get(variant)!.push(wall - modelMs - toolMs);
    }
  }
}
const rows = variants.map((v) => ({
  name: v.name,
  step: median(stepOverheads(v.recorder, starts.get(v)!)),
  turn: median(overheads.get(v)!),
  cpu: median(cpu.get(v)!),
}));
const peer = rows.at(-1)!;
for (const row of rows)
  process.stdout.write(
    `${row.name}: step ${row.step.toFixed(2)} ms (${(row.step / peer.step).toFixed(2)}x), turn ${row.turn.toFixed(2)} ms (${(row.turn / peer.turn).toFixed(2)}x), CPU per turn ${row.cpu.toFixed(2)} ms (${(row.cpu / peer.cpu).toFixed(2)}x)\n`,
  );
await Promise.all(variants.map((v) => v.close()));
