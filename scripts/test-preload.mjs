// Preloaded into every test process `npm test` starts (`node --import ./scripts/test-preload.mjs`):
// makes node:test's tracking of asynchronous work cheap.
//
// node:test maps every asynchronous resource, each promise included, to the test that created it (an
// async hook's `init`), so a test() call or an error in that work is put under the right test. It
// forgets each one when the resource is destroyed (the hook's `destroy`). A `destroy` callback makes
// Node watch every promise until it is collected: on a loaded machine up to 30% of the CPU of a file
// whose server runs in the test's process, about 8% on a quiet one (docs/testing.md).
// Here the runner's hook keeps its `init`, so everything is still attributed as before. Instead of
// `destroy`, the oldest entries are forgotten in batches once MAX_TRACKED are remembered (never a test's
// own). Work continuing from a resource that old is then attributed to no test: an error there is
// still reported, as a failure of the whole file. DEERFLOW_TEST_ASYNC_TRACKING=full keeps the runner's
// own hook.
import asyncHooks from "node:async_hooks";

const MAX_TRACKED = 1_000_000;

if (process.env.DEERFLOW_TEST_ASYNC_TRACKING !== "full") {
  const createHook = asyncHooks.createHook;
  asyncHooks.createHook = function lighterForTheTestRunner(callbacks) {
    const fromRunner = /internal\/test_runner\/harness/.test(new Error().stack ?? "");
    if (!fromRunner || typeof callbacks?.init !== "function" || typeof callbacks.destroy !== "function")
      return createHook.call(this, callbacks);
    const { init, destroy } = callbacks;
    let tracked = [];
    return createHook.call(this, {
      init(asyncId, type, triggerAsyncId, resource) {
        init(asyncId, type, triggerAsyncId, resource);
        if (type === "Test") return; // a test or suite: kept for the whole run
        tracked.push(asyncId);
        if (tracked.length < MAX_TRACKED) return;
        const forget = tracked.slice(0, MAX_TRACKED / 2);
        tracked = tracked.slice(MAX_TRACKED / 2);
        for (const id of forget) destroy(id);
      },
    });
  };
}
