import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createRequestsFirst } from "./requests-first.js";

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
