import { performance } from "node:perf_hooks";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { buildVariant } from "../scenario.js";
const name = process.argv[2] as any; const turns = Number(process.argv[3] ?? 60);
const events: { t: number; node?: string }[] = [];
let nextNode = "?";
const origPut = SqliteSaver.prototype.put; const origPW = SqliteSaver.prototype.putWrites;
SqliteSaver.prototype.put = async function (...a: any[]) { const r = await origPut.apply(this, a as any); events.push({ t: performance.now(), node: nextNode }); nextNode = "?"; return r; };
SqliteSaver.prototype.putWrites = async function (config: any, writes: any[], taskId: string) { for (const [ch] of writes) if (String(ch).startsWith("branch:to:")) nextNode = String(ch).slice(10); return origPW.call(this, config, writes, taskId); };
const v = await buildVariant(name, `/tmp/stepcost-${name}-${Date.now()}`);
for (let i = 1; i <= 10; i++) await v.turn(i);
events.length = 0;
const turnMs: number[] = []; const gapMs: number[] = []; const headMs: number[] = [];
for (let i = 11; i <= turns; i++) { const s = performance.now(); const e0 = events.length; await v.turn(i); const end = performance.now(); turnMs.push(end - s); gapMs.push(end - (events.at(-1)?.t ?? end)); headMs.push(events[e0]!.t - s); events.push({ t: NaN, node: "TURN" }); }
const by = new Map<string, number[]>();
for (let k = 1; k < events.length; k++) { if (events[k]!.node === "TURN" || events[k-1]!.node === "TURN") continue; const label = events[k - 1]!.node ?? "?"; const d = events[k]!.t - events[k - 1]!.t; (by.get(label) ?? by.set(label, []).get(label)!).push(d); }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (const [k, ds] of by) console.log(name, k.padEnd(40), "n", (ds.length / (turns - 10)).toFixed(1), "median", med(ds).toFixed(2));
console.log(name, "turn median", med(turnMs).toFixed(2), "after last put", med(gapMs).toFixed(2), "to first put", med(headMs).toFixed(2));
await v.close();
