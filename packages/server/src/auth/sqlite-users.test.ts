import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { createTempHome } from "@deerflow/harness/testing";
import { issueToken } from "./accounts.js";
import { openSqliteUserStore } from "./sqlite-users.js";

test("revokeByPrefix deletes exactly the tokens whose shown prefix starts with the text", async (t) => {
  const dir = createTempHome({ prefix: "df-users-" });
  const users = openSqliteUserStore(path.join(dir.path, "checkpoints.sqlite"));
  t.after(() => {
    users.close();
    dir.cleanup();
  });
  const bob = await users.create({ name: "bob" });
  const first = await issueToken(users, bob.id, "api");
  const second = await issueToken(users, bob.id, "api");

  const revoked = await users.revokeByPrefix(first.record.prefix.slice(0, 10));
  assert.deepEqual(
    revoked.map((token) => token.id),
    [first.record.id],
  );
  assert.deepEqual(
    (await users.listTokens(bob.id, "api")).map((token) => token.id),
    [second.record.id],
  );
  assert.deepEqual(await users.revokeByPrefix("dfp_no-such"), []);
});
