import assert from "node:assert/strict";
import { test } from "node:test";
import { ModelCircuits } from "./circuit-breaker.js";

const limits = { failureThreshold: 2, cooldownMs: 60_000 };

test("a circuit opens at the threshold, refuses during the cool-down, then lets one probe through", () => {
  let now = 1_000;
  const circuits = new ModelCircuits(() => now);
  circuits.failed("a", limits, "server (HTTP 503)");
  assert.deepEqual(circuits.admit("a", limits), { admitted: true, probe: false });
  circuits.failed("a", limits, "server (HTTP 503)");
  assert.deepEqual(circuits.admit("a", limits), {
    admitted: false,
    retryAt: 61_000,
    waitMs: 60_000,
    failures: 2,
    lastError: "server (HTTP 503)",
  });
  assert.deepEqual(circuits.admit("b", limits), { admitted: true, probe: false }, "other endpoints are not paused");
  now = 61_000;
  assert.deepEqual(circuits.admit("a", limits), { admitted: true, probe: true });
  assert.equal(circuits.admit("a", limits).admitted, false, "one probe at a time");
  circuits.failed("a", limits, "timeout");
  assert.equal(circuits.admit("a", limits).admitted, false, "a failed probe starts a new pause");
  now = 121_000;
  assert.equal(circuits.admit("a", limits).admitted, true);
  circuits.succeeded("a");
  assert.deepEqual(circuits.admit("a", limits), { admitted: true, probe: false });
});

test("a released probe frees its slot; a threshold of 0 never opens", () => {
  let now = 0;
  const circuits = new ModelCircuits(() => now);
  circuits.failed("a", limits, "x");
  circuits.failed("a", limits, "x");
  now = 60_000;
  assert.equal(circuits.admit("a", limits).admitted, true);
  circuits.released("a");
  assert.equal(circuits.admit("a", limits).admitted, true);
  const off = { failureThreshold: 0, cooldownMs: 1 };
  for (let i = 0; i < 5; i += 1) circuits.failed("b", off, "x");
  assert.equal(circuits.admit("b", off).admitted, true);
});
