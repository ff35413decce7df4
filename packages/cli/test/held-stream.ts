/**
 * A model endpoint whose streamed answer stops halfway until the test lets it go on: a proxy in front
 * of the fake OpenAI server. It passes every request through; in the first streamed answer whose text
 * reaches `holdAfter`, it sends the events up to there, then waits for `release()` before sending the
 * rest. A test that sees the first half on the CLI's stdout while the rest is held has proved the
 * answer is printed as it is produced, with no timing involved.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A running holding proxy. */
export interface HeldStream {
  /** Base URL for config.yaml's `base_url`. */
  url: string;
  /** Resolves when the answer is being held. */
  held: Promise<void>;
  /** Sends the rest of the held answer (and lets later answers through at once). */
  release(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `upstream` (a fake server's `url`) that holds the answer after `holdAfter`. */
export async function startHeldStream(upstream: string, holdAfter: string): Promise<HeldStream> {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let onHeld: () => void = () => {};
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  let holding = true;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const response = await fetch(`${upstream}${(req.url ?? "").replace(/^\/v1/, "")}`, {
        method: req.method,
        headers: { "content-type": "application/json" },
        body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
      });
      const body = await response.text();
      res.writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "application/json" });
      if (!response.headers.get("content-type")?.includes("text/event-stream")) return void res.end(body);
      let text = "";
      for (const event of body.split(/(?<=\n\n)/)) {
        res.write(event);
        const data = /^data: (\{.*\})/.exec(event)?.[1];
        text += data
          ? ((JSON.parse(data) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ?? "")
          : "";
        if (holding && text.includes(holdAfter)) {
          holding = false;
          onHeld();
          await released;
        }
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    held,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
