/**
 * Webhooks (docs/schedules.md): a run created with `webhook` POSTs its final result to the receiver
 * once it ends, through the SSRF-safe fetch (the receiver here is on loopback, so the config lists it
 * in web.allow_hosts), signed with server.webhook_secret; a receiver that fails is tried again; a
 * receiver on an address the policy refuses is never called. Real server, real receivers over HTTP.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test, type TestContext } from "node:test";
import Database from "better-sqlite3";
import { startTestServer, until } from "./helpers.js";

const SECRET = "a-webhook-secret-for-tests";
const say = (content: string) => ({ messages: [{ role: "user", content }] });

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers each POST with the next status of `statuses` (the last one repeats). */
async function startReceiver(t: TestContext, statuses: number[] = [200]) {
  const received: Delivery[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { received, url: `http://127.0.0.1:${port}/hook`, port };
}

test("a run's webhook receives the run with its final values, signed over the timestamp and body", async (t) => {
  const receiver = await startReceiver(t);
  const s = await startTestServer({
    yaml: `web: {allow_hosts: ["127.0.0.1:${receiver.port}"]}\nserver: {webhook_secret: ${SECRET}}`,
  });
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  const run = await s.client.runs.create(thread.thread_id, "lead_agent", { input: say("hi"), webhook: receiver.url });
  await until(() => receiver.received.length === 1, 10_000, "the delivery");
  const [delivery] = receiver.received;
  const body = JSON.parse(delivery!.body) as {
    run_id: string;
    thread_id: string;
    status: string;
    values: { messages: Array<{ content: string }> };
  };
  assert.equal(body.run_id, run.run_id);
  assert.equal(body.thread_id, thread.thread_id);
  assert.equal(body.status, "success");
  assert.equal(body.values.messages.at(-1)?.content, "Hello from the fake model.");
  const timestamp = delivery!.headers["x-deerflow-timestamp"] as string;
  assert.match(timestamp, /^\d+$/);
  const expected = `sha256=${createHmac("sha256", SECRET).update(`${timestamp}.${delivery!.body}`).digest("hex")}`;
  assert.equal(delivery!.headers["x-deerflow-signature"], expected);
  await until(
    async () => (await s.server.context.deliveries.ofRun(run.run_id))[0]?.status === "delivered",
    5_000,
    "the delivery to be recorded",
  );
});

test("a failing receiver is tried again with backoff until it answers", async (t) => {
  const receiver = await startReceiver(t, [500, 503, 200]);
  const s = await startTestServer({
    yaml: `web: {allow_hosts: ["127.0.0.1:${receiver.port}"]}`,
    webhookRetryBaseMs: 50,
  });
  t.after(() => s.close());
  const run = await s.client.runs.create(null, "lead_agent", { input: say("hi"), webhook: receiver.url });
  await until(() => receiver.received.length === 3, 15_000, "three attempts");
  await until(
    async () => (await s.server.context.deliveries.ofRun(run.run_id))[0]?.status === "delivered",
    5_000,
    "the delivery to be recorded",
  );
  const [row] = await s.server.context.deliveries.ofRun(run.run_id);
  assert.equal(row?.attempts, 3);
  const bodies = receiver.received.map((delivery) => JSON.parse(delivery.body).run_id);
  assert.deepEqual(bodies, [run.run_id, run.run_id, run.run_id], "every attempt carries the same run");
  assert.equal(receiver.received[0]!.headers["x-deerflow-signature"], undefined, "no secret, no signature");
});

test("a webhook to an address the network policy refuses is never sent, and a malformed one is a 422", async (t) => {
  const receiver = await startReceiver(t);
  const s = await startTestServer({ webhookRetryBaseMs: 50 });
  t.after(() => s.close());
  const run = await s.client.runs.create(null, "lead_agent", { input: say("hi"), webhook: receiver.url });
  await until(
    async () => (await s.server.context.deliveries.ofRun(run.run_id))[0]?.status === "failed",
    10_000,
    "the refusal",
  );
  const [row] = await s.server.context.deliveries.ofRun(run.run_id);
  assert.match(row!.last_error!, /loopback|private|allow_hosts/);
  assert.equal(receiver.received.length, 0);
  await assert.rejects(
    s.client.runs.create(null, "lead_agent", { input: say("hi"), webhook: "ftp://example.com/x" }),
    /422.*http\(s\) URL/,
  );
});

test("a cron's webhook is sent for each firing's run", async (t) => {
  const receiver = await startReceiver(t);
  const s = await startTestServer({
    yaml: `web: {allow_hosts: ["127.0.0.1:${receiver.port}"]}`,
    cronMaxSleepMs: 60_000,
  });
  t.after(() => s.close());
  const cron = await s.client.crons.create("lead_agent", {
    schedule: "0 9 * * *",
    input: say("report"),
    webhook: receiver.url,
  });
  await s.server.context.crons.update(cron.cron_id, null, { next_run_at: new Date().toISOString() });
  await s.server.context.announceCrons();
  await until(() => receiver.received.length === 1, 10_000, "the firing's delivery");
  const body = JSON.parse(receiver.received[0]!.body) as { metadata: { cron_id: string }; status: string };
  assert.equal(body.metadata.cron_id, cron.cron_id);
  assert.equal(body.status, "success");
});

test("a delivery not yet made when the server stops is made by the next start", async (t) => {
  const receiver = await startReceiver(t, [503, 200]);
  const yaml = `web: {allow_hosts: ["127.0.0.1:${receiver.port}"]}`;
  // The first attempt fails and the next is an hour away: the server stops before it.
  const first = await startTestServer({ yaml, webhookRetryBaseMs: 3_600_000 });
  t.after(() => first.close());
  const run = await first.client.runs.create(null, "lead_agent", { input: say("hi"), webhook: receiver.url });
  await until(() => receiver.received.length === 1, 10_000, "the first attempt");
  await until(
    async () => (await first.server.context.deliveries.ofRun(run.run_id))[0]?.attempts === 1,
    5_000,
    "the failed attempt to be recorded",
  );
  await first.stopServer();
  // Its time comes while the server is down.
  const file = first.harness.setup.store!.file;
  const db = new Database(file);
  db.prepare("UPDATE deerflow_deliveries SET next_attempt_at = ?").run(new Date().toISOString());
  db.close();

  const second = await first.restart({ webhookRetryBaseMs: 50 });
  try {
    await until(() => receiver.received.length === 2, 10_000, "the attempt after the restart");
    assert.equal(JSON.parse(receiver.received[1]!.body).run_id, run.run_id);
    await until(
      async () => (await second.server.context.deliveries.ofRun(run.run_id))[0]?.status === "delivered",
      5_000,
      "the delivery to be recorded",
    );
  } finally {
    await second.stopServer();
  }
});

test("on Postgres, each run's webhook is delivered, a second one too after the deliverer found none waiting", async (t) => {
  const { testDatabase } = await import("@deerflow/harness/testing");
  const db = await testDatabase();
  if ("skip" in db) return t.skip(db.skip);
  t.after(() => db.drop());
  const receiver = await startReceiver(t);
  const s = await startTestServer({
    yaml: `database: {backend: postgres, url: '${db.url}'}\nweb: {allow_hosts: ["127.0.0.1:${receiver.port}"]}\nserver: {webhook_secret: ${SECRET}}`,
  });
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  // A run without a webhook first: the deliverer then finds nothing waiting.
  await s.client.runs.wait(thread.thread_id, "lead_agent", { input: say("no hook") });
  for (const text of ["first", "second"]) {
    const count = receiver.received.length;
    const run = await s.client.runs.create(thread.thread_id, "lead_agent", { input: say(text), webhook: receiver.url });
    await until(() => receiver.received.length === count + 1, 10_000, `the delivery of the ${text} run`);
    const body = JSON.parse(receiver.received.at(-1)!.body) as { run_id: string; status: string };
    assert.deepEqual([body.run_id, body.status], [run.run_id, "success"]);
  }
});
