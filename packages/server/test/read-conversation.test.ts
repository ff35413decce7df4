/**
 * read_conversation on the server: a user's agent reads that user's own earlier thread, and another
 * user's thread is never readable, whether referenced from the composer or asked for by id.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { addUser, issueToken } from "../src/auth/accounts.js";
import { startTestServer } from "./helpers.js";

type Body = { messages: Array<{ role: string; content?: unknown }> };
const SECRET = "alice's launch codename is Bluebird";

/** "read ID" calls read_conversation once, then answers; anything else is echoed. */
function script(body: Body) {
  const at = body.messages.map((message) => message.role).lastIndexOf("user");
  const text = String(body.messages[at]?.content ?? "");
  const answered = body.messages.slice(at + 1).some((message) => message.role === "tool");
  const id = /^read (\S+)/.exec(text)?.[1];
  if (id && !answered) return { tool_calls: [{ name: "read_conversation", arguments: { thread_id: id } }] };
  return { content: `echo: ${text.slice(0, 40)}` };
}

const toolResults = (bodies: Body[]) =>
  bodies.flatMap((body) => body.messages.filter((m) => m.role === "tool").map((m) => String(m.content)));

test("a user's agent reads their own earlier thread and never another user's", async () => {
  const t = await startTestServer({ script });
  try {
    const users = t.server.context.users;
    const clientOf = async (name: string) => {
      const user = await addUser(users, { name, password: `${name}-password-123`, admin: false });
      const { token } = await issueToken(users, user.id, "api", { name: "test" });
      return new Client({ apiUrl: t.url, apiKey: token, callerOptions: { maxRetries: 0 } });
    };
    const alice = await clientOf("alice");
    const bob = await clientOf("bob");
    t.server.context.auth.refresh();

    const aliceThread = (await alice.threads.create()).thread_id;
    await alice.runs.wait(aliceThread, "lead_agent", { input: { messages: [{ role: "user", content: SECRET }] } });
    const bobOld = (await bob.threads.create()).thread_id;
    await bob.runs.wait(bobOld, "lead_agent", {
      input: { messages: [{ role: "user", content: "bob's plan is Sparrow" }] },
    });

    const bobNew = (await bob.threads.create()).thread_id;
    const from = t.fake.requests.length;
    await bob.runs.wait(bobNew, "lead_agent", {
      input: {
        messages: [
          {
            type: "human",
            content: `read ${aliceThread}`,
            additional_kwargs: { conversation_refs: [{ thread_id: aliceThread, title: "Alice's" }] },
          },
        ],
      },
    });
    await bob.runs.wait(bobNew, "lead_agent", { input: { messages: [{ role: "user", content: `read ${bobOld}` }] } });
    const bobRequests = t.fake.requests.slice(from) as Body[];
    const results = toolResults(bobRequests);
    assert.match(results[0]!, new RegExp(`^Error: no conversation "${aliceThread}" of this user was found`));
    assert.match(results.at(-1)!, /user: bob's plan is Sparrow/);
    assert.ok(!JSON.stringify(bobRequests).includes("Bluebird"), "alice's words never reach bob's model");
    assert.match(JSON.stringify(bobRequests[0]!.messages), /<referenced_conversations>/);
  } finally {
    await t.close();
  }
});
