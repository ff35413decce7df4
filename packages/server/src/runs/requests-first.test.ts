import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createRequestsFirst, FAIR_SHARE } from "./requests-first.js";

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
