import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createRequestsFirst, FAIR_SHARE, SLICE_MS } from "./requests-first.js";

test("a turn waits while a run request is being answered and comes after it", async () => {
  const first = createRequestsFirst();
  const order: string[] = [];
  const answered = first.begin();
  const turn = first.turn().then(() => order.push("graph"));
  for (let index = 0; index < 5; index += 1) await nextTurn();
  order.push("answered");
  answered();
  answered(); // a second call changes nothing
  await turn;
  assert.deepEqual(order, ["answered", "graph"]);
  // With nothing being answered, a turn comes on a later turn of the event loop.
  const later = first.begin();
  later();
  await first.turn();
});

test("turns are handed out first come first served, one per turn of the event loop", async () => {
  const first = createRequestsFirst();
  const order: string[] = [];
  const turns = ["a", "b", "c"].map((name) => first.turn().then(() => order.push(name)));
  // Queued after the turns: it runs between the first and the second (callbacks of this kind, like
  // socket reads, get in between two pieces of graph work).
  setImmediate(() => order.push("between"));
  await Promise.all(turns);
  assert.deepEqual(order, ["a", "between", "b", "c"]);
});

test("overlapping run requests cannot starve graph work: it gets a turn after every few answered", async () => {
  const first = createRequestsFirst();
  const order: string[] = [];
  let answered = first.begin();
  const turn = first.turn().then(() => order.push("graph"));
  // Each request begins before the previous one is answered, so one is always being answered.
  for (let index = 1; index <= FAIR_SHARE + 2; index += 1) {
    const next = first.begin();
    answered();
    order.push(`answered ${index}`);
    answered = next;
    for (let wait = 0; wait < 3; wait += 1) await nextTurn();
  }
  await turn;
  answered();
  assert.equal(order.indexOf("graph"), FAIR_SHARE, order.join(", "));
});

test("inside its slice graph work goes on at once; past it, it waits for a turn of the event loop", async () => {
  let clock = 0;
  const first = createRequestsFirst(() => clock);
  const order: string[] = [];
  /** Asks for a turn; records whether it came before or after a turn of the event loop queued first. */
  const ask = async (name: string) => {
    setImmediate(() => order.push(`loop ${name}`));
    await first.turn().then(() => order.push(name));
    await nextTurn();
  };
  await ask("first"); // no slice yet: a turn of the event loop starts one
  clock += SLICE_MS / 2;
  await ask("inside");
  clock += SLICE_MS;
  await ask("past");
  assert.deepEqual(order, ["loop first", "first", "inside", "loop inside", "loop past", "past"]);
});

test("no graph work goes on inside its slice while a run request is being answered", async () => {
  const clock = 0;
  const first = createRequestsFirst(() => clock);
  await first.turn(); // the slice starts
  const order: string[] = [];
  const answered = first.begin();
  const turn = first.turn().then(() => order.push("graph"));
  for (let index = 0; index < 3; index += 1) await nextTurn();
  order.push("answered");
  answered();
  await turn;
  assert.deepEqual(order, ["answered", "graph"]);
});
