/**
 * Requests a hostile or careless client sends (issue 21, part 7): bodies over the limit whatever their
 * content type claims, JSON nested absurdly deep, headers trickled in a byte at a time, short API keys
 * on a public host. Each is answered with a clear status, and the server keeps serving.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTempHome, spawnServe } from "@deerflow/harness/testing";
import { createServer } from "../src/index.js";
import { collect, gate, parseSse, readSse, startTestServer } from "./helpers.js";

const MB = 1024 * 1024;

/**
 * Sends a chunked body of up to `total` bytes, stopping as soon as the server answers; returns the
 * status, the answer and how many bytes were sent by then.
 */
async function sendUntilAnswered(
  url: string,
  method: string,
  contentType: string,
  total: number,
): Promise<{ status: number; body: string; sent: number }> {
  const request = http.request(url, {
    method,
    headers: { "content-type": contentType, "transfer-encoding": "chunked" },
  });
  let response: http.IncomingMessage | undefined;
  const answered = new Promise<void>((resolve) =>
    request.on("response", (res) => {
      response = res;
      resolve();
    }),
  );
  const closed = once(request, "close").catch(() => {});
  request.on("error", () => {}); // The server may close the socket once it has answered.
  const chunk = Buffer.alloc(256 * 1024, "a");
  let sent = 0;
  request.write('{"metadata": {"pad": "');
  while (sent < total && !response && !request.destroyed) {
    sent += chunk.length;
    if (!request.write(chunk)) await Promise.race([once(request, "drain"), answered, closed]);
  }
  if (!response) request.end('"}}');
  await answered;
  let body = "";
  for await (const part of response!) body += String(part);
  request.destroy();
  return { status: response!.statusCode!, body, sent };
}

test("a JSON route keeps max_body_bytes whatever Content-Type claims: a 30 MB multipart POST /threads is 413 and stores nothing", async () => {
  const t = await startTestServer();
  try {
    const body = JSON.stringify({ metadata: { pad: "x".repeat(30 * MB) } });
    const response = await fetch(`${t.url}/threads`, {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=x" },
      body,
    });
    assert.equal(response.status, 413);
    assert.match(((await response.json()) as { detail: string }).detail, /larger than 1048576 bytes.*max_body_bytes/);
    assert.deepEqual(await t.client.threads.search(), [], "nothing was stored");
  } finally {
    await t.close();
  }
});

test("a chunked body far over the limit is refused while the client is still sending it (never read whole)", async () => {
  const t = await startTestServer();
  try {
    const thread = await t.client.threads.create();
    const total = 60 * MB;
    for (const contentType of ["multipart/form-data; boundary=x", "application/json"]) {
      const answer = await sendUntilAnswered(`${t.url}/api/threads/${thread.thread_id}`, "PATCH", contentType, total);
      assert.equal(answer.status, 413, `${contentType}: ${answer.body}`);
      assert.ok(answer.sent < total, `${contentType}: the server answered after ${answer.sent} of ${total} bytes`);
    }
    assert.deepEqual((await t.client.threads.get(thread.thread_id)).metadata, {}, "the thread is unchanged");
    assert.ok((await t.client.threads.search()).length === 1, "the server still serves");
  } finally {
    await t.close();
  }
});

test("the upload routes keep their own, larger limit (max_body_bytes does not apply to them)", async () => {
  const t = await startTestServer({ maxBodyBytes: 1000 });
  try {
    const form = new FormData();
    form.append("files", new Blob(["y".repeat(50_000)]), "notes.txt");
    const thread = await t.client.threads.create();
    const response = await fetch(`${t.url}/api/threads/${thread.thread_id}/uploads`, { method: "POST", body: form });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(((await response.json()) as { files: { size: number }[] }).files[0]!.size, 50_000);
  } finally {
    await t.close();
  }
});

test("JSON nested 100,000 levels deep is a 422 naming the limit, on plain routes and run routes; normal nesting passes", async () => {
  const t = await startTestServer({ maxBodyBytes: 10 * MB });
  try {
    const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const thread = await t.client.threads.create();
    const bodies: Array<[string, string]> = [
      ["/threads", `{"metadata": {"a": ${deep(100_000)}}}`],
      ["/threads/search", `{"metadata": {"a": ${deep(100_000)}}}`],
      [`/threads/${thread.thread_id}/runs`, `{"assistant_id": "lead_agent", "input": {"x": ${deep(100_000)}}}`],
    ];
    for (const [route, body] of bodies) {
      const response = await fetch(`${t.url}${route}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      assert.equal(response.status, 422, route);
      assert.match(((await response.json()) as { detail: string }).detail, /more than 128 levels deep/, route);
    }
    const brackets = await fetch(`${t.url}/threads`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { text: "[".repeat(10_000), nested: JSON.parse(deep(100)) } }),
    });
    assert.equal(brackets.status, 200, "brackets inside strings do not count; 100 levels are fine");
    assert.equal(t.logs.filter((line) => /RangeError|stack/.test(line)).length, 0);
  } finally {
    await t.close();
  }
});

test("slow loris: a client that trickles its headers gets 408 and its socket closed", { timeout: 30_000 }, async () => {
  const t = await startTestServer({ headersTimeoutMs: 500 });
  try {
    const { port } = new URL(t.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    await once(socket, "connect");
    socket.write("GET /threads/search HTTP/1.1\r\nHost: x\r\n");
    let received = "";
    socket.on("data", (data) => {
      received += String(data);
    });
    socket.on("error", () => {});
    // One more header every 100 ms, for as long as the server keeps the socket.
    const trickle = setInterval(() => socket.write("X-Slow: a\r\n"), 100);
    await once(socket, "close");
    clearInterval(trickle);
    assert.match(received, /^HTTP\/1\.1 408/);
    assert.equal((await fetch(`${t.url}/ok`)).status, 200, "other clients are served");
  } finally {
    await t.close();
  }
});

test("the request timeout bounds receiving a request only: an SSE stream outlives it", async () => {
  const slow = gate();
  const t = await startTestServer({
    headersTimeoutMs: 100,
    requestTimeoutMs: 200,
    heartbeatMs: 100,
    script: async () => {
      await slow.wait;
      return { content: "finally" };
    },
  });
  try {
    const thread = await t.client.threads.create();
    const response = await fetch(`${t.url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ role: "user", content: "hi" }] } }),
    });
    let opened = false;
    const text = await readSse(response, (so) => {
      // Ten heartbeats (a second, five request timeouts) in, let the model answer.
      if (!opened && (so.match(/: heartbeat/g) ?? []).length >= 10) {
        opened = true;
        slow.open();
      }
      return /event: end/.test(so);
    });
    assert.match(text, /finally/);
    assert.match(text, /event: end/);
  } finally {
    slow.open();
    await t.close();
  }
});

test("a key shorter than 16 characters is refused on a public host (DEER_FLOW_API_KEYS too); loopback still starts", async () => {
  const t = await startTestServer({ env: { DEER_FLOW_API_KEYS: "k" }, apiKey: "k" });
  try {
    assert.ok((await t.client.threads.search()).length === 0, "a short key still works on loopback (development)");
    const exposed = createServer(t.harness, { env: { DEER_FLOW_API_KEYS: "k" }, log: () => {}, webDir: null });
    try {
      await assert.rejects(exposed.start({ host: "0.0.0.0", port: 0 }), (error: Error) => {
        assert.match(error.message, /Refusing to listen on 0\.0\.0\.0 with an API key shorter than 16 characters/);
        assert.match(error.message, /server\.api_keys or DEER_FLOW_API_KEYS/);
        return true;
      });
    } finally {
      await exposed.stop();
    }
  } finally {
    await t.close();
  }
});

test("a Last-Event-ID past the end of a finished run's log gets end at once (raw SSE and the SDK's joinStream)", async () => {
  const t = await startTestServer();
  try {
    const thread = await t.client.threads.create();
    const run = await t.client.runs.create(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "hi" }] },
    });
    await t.client.runs.join(thread.thread_id, run.run_id);
    for (const lastEventId of ["999999", "7"]) {
      const response = await fetch(`${t.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`, {
        headers: { "last-event-id": lastEventId },
      });
      const frames = parseSse(await readSse(response));
      assert.deepEqual(
        frames.map((frame) => frame.event),
        ["end"],
        `Last-Event-ID ${lastEventId}`,
      );
    }
    const parts = await collect(t.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "999999" }));
    assert.deepEqual(
      parts.map((part) => part.event),
      ["end"],
      "the SDK's join ends instead of reconnecting",
    );
  } finally {
    await t.close();
  }
});

test("deerflow serve --host 0.0.0.0 with a one-character DEER_FLOW_API_KEYS exits 2 naming the setting", async () => {
  const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../cli/dist/bin/main.js");
  const home = createTempHome();
  try {
    const serve = spawnServe(cli, ["--host", "0.0.0.0", "--port", "0"], {
      env: { DEER_FLOW_HOME: home.path, DEER_FLOW_API_KEYS: "k" },
    });
    assert.equal(await serve.exited, 2);
    assert.match(serve.out.stderr, /shorter than 16 characters.*DEER_FLOW_API_KEYS/);
  } finally {
    home.cleanup();
  }
});
