/**
 * Pins the runtime exports of `@deerflow/server`, so an addition to its public surface is deliberate.
 * (Its type exports are named one by one in `src/index.ts`.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as server from "../src/index.js";

test("the runtime exports of @deerflow/server are exactly the pinned list", () => {
  assert.deepEqual(Object.keys(server).sort(), [
    "AccountError",
    "HttpError",
    "Id",
    "RunStatus",
    "ThreadStatus",
    "UserExistsError",
    "addUser",
    "check",
    "createCron",
    "createServer",
    "deleteThread",
    "findThread",
    "isLoopbackHost",
    "issueToken",
    "notFound",
    "parseBody",
    "parseQuery",
    "pathId",
    "postToChannel",
    "removeUser",
    "requireThread",
    "resolveApiKeys",
    "toWire",
  ]);
});
