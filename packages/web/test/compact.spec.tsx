/**
 * `/compact` in the composer: which texts are the command, the request the app sends (DeerFlow's
 * route and body, with the API key and the chosen model), and what the user is told.
 */
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { makeClient } from "../src/api";
import { Chat } from "../src/chat/Chat";
import { compactNotice, compactThread, isCompactCommand } from "../src/chat/compact";

afterEach(() => vi.unstubAllGlobals());

it("recognises /compact and DeerFlow's /context compact, nothing else", () => {
  for (const text of ["/compact", " /compact ", "/COMPACT", "/context compact", "/context   compact"])
    expect(isCompactCommand(text)).toBe(true);
  for (const text of ["/compact now", "please /compact", "/compacting", "/context", "compact"])
    expect(isCompactCommand(text)).toBe(false);
});

it("posts {force: true} and the model to the thread's compact route, with the key", async () => {
  const answer = {
    thread_id: "t 1",
    compacted: true,
    reason: null,
    removed_message_count: 4,
    preserved_message_count: 2,
    summary_updated: true,
    checkpoint_id: "c",
    total_tokens: 120,
  };
  const fetchMock = vi.fn(async () => new Response(JSON.stringify(answer), { status: 200 }));
  vi.stubGlobal("fetch", fetchMock);
  const result = await compactThread("t 1", "key-1", "gpt");
  expect(result).toEqual(answer);
  const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
  expect(url).toBe(`${window.location.origin}/api/threads/t%201/compact`);
  expect(init.method).toBe("POST");
  expect(JSON.parse(String(init.body))).toEqual({ force: true, model_name: "gpt" });
  expect(new Headers(init.headers).get("x-api-key")).toBe("key-1");
  expect(compactNotice(result)).toMatch(/^Compacted: 4 earlier messages summarised\./);
});

it("a refusal comes back with the server's reason, and a thread with nothing to compact says so", async () => {
  vi.stubGlobal(
    "fetch",
    vi.fn(
      async () =>
        new Response(JSON.stringify({ detail: "Thread t has a run in progress. Compact it after the run finishes." }), {
          status: 409,
        }),
    ),
  );
  await expect(compactThread("t", undefined)).rejects.toThrow(/409: Thread t has a run in progress/);
  expect(
    compactNotice({
      thread_id: "t",
      compacted: false,
      reason: "not_enough_messages",
      removed_message_count: 0,
      preserved_message_count: 2,
      summary_updated: false,
      checkpoint_id: null,
      total_tokens: 10,
    }),
  ).toMatch(/^Nothing to compact yet/);
});

describe("Chat", () => {
  afterEach(() => {
    cleanup();
    sessionStorage.clear();
  });

  it("/compact in the composer compacts the thread instead of sending a message, and says so", async () => {
    const requests: string[] = [];
    const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
      requests.push(`${method} ${new URL(url).pathname}`);
      if (url.endsWith("/compact"))
        return new Response(
          JSON.stringify({ thread_id: "t1", compacted: true, reason: null, removed_message_count: 6 }),
          { status: 200, headers: { "content-type": "application/json" } },
        );
      if (url.endsWith("/history")) return Response.json([]);
      return Response.json({ values: { messages: [] }, next: [], tasks: [], metadata: {} });
    });
    vi.stubGlobal("fetch", fetchMock);
    Element.prototype.scrollIntoView = () => {}; // jsdom has no layout
    render(
      <Chat
        client={makeClient(undefined)}
        apiKey={undefined}
        threadId="t1"
        settings={{ planMode: false, thinking: false, subagents: false, model: "fake", theme: "system" }}
        onThreadCreated={() => {}}
        onRunFinished={() => {}}
        onUnauthorized={() => {}}
        onState={() => {}}
        onOpenArtifact={() => {}}
      />,
    );
    const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: "/compact" } });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(await screen.findByTestId("compact-notice")).toHaveProperty(
      "textContent",
      expect.stringMatching(/^Compacted: 6 earlier messages summarised/),
    );
    await vi.waitFor(() => expect(box.value).toBe(""));
    expect(requests).toContain("POST /api/threads/t1/compact");
    expect(requests.filter((request) => request.startsWith("POST") && request.includes("/runs"))).toEqual([]);
  });
});
