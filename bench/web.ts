/**
 * `npm run bench -- web`: the web app's rendering figures of issue 12, in real Chromium against a real
 * `deerflow serve` (the e2e kit: playwright-core, Debian's chromium, the fake OpenAI server).
 *
 * 1. Open a 1,000-message thread: time from navigation to the last message on screen, and how many
 *    messages are in the DOM (virtualization keeps it small).
 * 2. Scroll it from bottom to top in steps (rows never rendered before), then back down (rows seen
 *    before): frame times while scrolling.
 * 3. Stream a 2,000-token answer (one word is one streamed token) into that thread and count, through
 *    the app's render counter (`window.__deerflowRenders`, see MessageView.tsx), how often each earlier
 *    message rendered meanwhile: the target is zero. Also the time until the whole answer is shown and
 *    the page's long tasks (over 50 ms) meanwhile.
 * 4. Without `--quick`: the same with a 20,000-token answer into the same 1,000-message thread, and,
 *    to tell the server's share from the page's, the same answer streamed by the SDK's `Client` alone
 *    (no browser; stream modes values, messages-tuple, updates and custom) into a fresh 1,000-message
 *    thread.
 *    With `--profile`, a CPU profile of the page while streaming (DevTools protocol `Profiler`): the
 *    places with the most self time, each with the start of its source line, to tell whose code it is.
 *
 * Measurement, not a test: it prints a Markdown table to paste into docs/benchmarks.md.
 */
import { performance } from "node:perf_hooks";
import { Client } from "@langchain/langgraph-sdk";
import { fakeModelConfig, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { openBrowser, serve, skipReason } from "../packages/web/e2e/support.js";

const log = (line: string) => process.stderr.write(`${line}\n`);
const MESSAGES = 1000;

function history(count = MESSAGES): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? { type: "human", id: `bench-${index}`, content: `Question ${index}: what about deer number ${index}?` }
      : {
          type: "ai",
          id: `bench-${index}`,
          content: `Answer ${index}: deer **${index}** grazes at dawn.\n\n- antlers shed in winter\n- \`code ${index}\` and a [link](https://example.com)`,
        },
  );
}

interface CpuProfile {
  nodes: {
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    hitCount?: number;
  }[];
}

/** Logs the ten places with the most self time in `profile`, with a bit of their source. */
async function printProfile(page: import("playwright-core").Page, profile: CpuProfile): Promise<void> {
  const self = new Map<string, { hits: number; frame: CpuProfile["nodes"][number]["callFrame"] }>();
  let total = 0;
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    const key = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}:${frame.functionName}`;
    const entry = self.get(key) ?? { hits: 0, frame };
    entry.hits += node.hitCount ?? 0;
    total += node.hitCount ?? 0;
    self.set(key, entry);
  }
  const sources = new Map<string, string[]>();
  for (const { hits, frame } of [...self.values()].sort((a, b) => b.hits - a.hits).slice(0, 10)) {
    let snippet = "";
    if (frame.url.startsWith("http")) {
      if (!sources.has(frame.url))
        sources.set(frame.url, (await (await page.request.get(frame.url)).text()).split("\n"));
      snippet = (sources.get(frame.url)![frame.lineNumber] ?? "").slice(frame.columnNumber, frame.columnNumber + 100);
    }
    log(
      `web: profile ${((100 * hits) / total).toFixed(1)}% ${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop() || "(native)"}:${frame.lineNumber}:${frame.columnNumber} ${snippet}`,
    );
  }
}

/** Runs the web benchmark and prints its table. */
export async function main(quick: boolean): Promise<void> {
  const skip = skipReason();
  if (skip) throw new Error(`The web benchmark cannot run: ${skip}.`);
  const fake = await startFakeOpenAIServer({
    script: (body) => {
      const last = body.messages.filter((m) => m.role === "user").at(-1);
      const words = Number(/Stream a long answer of (\d+) words/.exec(JSON.stringify(last?.content ?? ""))?.[1] ?? 0);
      return {
        content:
          words > 0
            ? `${Array.from({ length: words }, (_, i) => `w${i}`).join(" ")} END-OF-ANSWER-${words}`
            : "Summary.",
      };
    },
  });
  const server = await serve({
    configYaml: fakeModelConfig(fake.url, "summarization: {enabled: false}"),
  });
  const browser = await openBrowser();
  try {
    const client = new Client({ apiUrl: `${server.url}/api` });
    const thread = await client.threads.create();
    await client.threads.updateState(thread.thread_id, { values: { messages: history() } });
    log(`web: thread ${thread.thread_id} holds ${MESSAGES} messages`);

    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(600_000);
    page.on("crash", () => log("web: the page crashed"));
    page.on("pageerror", (error) => log(`web: page error: ${error.message}`));
    await page.addInitScript(() => {
      const win = globalThis as unknown as { __deerflowRenders: Record<string, number>; __longTasks: number[] };
      win.__deerflowRenders = {};
      win.__longTasks = [];
      // Long tasks (over 50 ms) block input and scrolling; counted from here on.
      const Observer = (
        globalThis as unknown as {
          PerformanceObserver: new (
            callback: (list: { getEntries(): { duration: number }[] }) => void,
          ) => { observe(options: object): void };
        }
      ).PerformanceObserver;
      new Observer((list) => win.__longTasks.push(...list.getEntries().map((entry) => entry.duration))).observe({
        type: "longtask",
        buffered: true,
      });
    });
    // 1. Open.
    const start = performance.now();
    await page.goto(`${server.url}/threads/${thread.thread_id}`);
    await page
      .getByTestId("msg-ai")
      .getByText(`Answer ${MESSAGES - 1}:`)
      .waitFor();
    const openMs = performance.now() - start;
    const inDom = await page.locator("[data-testid=msg-human], [data-testid=msg-ai]").count();
    log(`web: opened in ${openMs.toFixed(0)} ms, ${inDom} messages in the DOM`);

    // 2. Scroll to the top in steps, then back to the bottom, measuring frame times.
    const scroll = (up: boolean) =>
      page.evaluate(async (upwards) => {
        // Runs in the page; typed loosely because the bench is compiled without the DOM library.
        const win = globalThis as unknown as {
          document: {
            querySelector(selector: string): { scrollTop: number; scrollHeight: number; clientHeight: number };
          };
          requestAnimationFrame(callback: (frameTime: number) => void): void;
        };
        const scroller = win.document.querySelector(".messages");
        const times: number[] = [];
        // Frame times are the differences between the frames' own timestamps (the time the browser gives
        // each animation frame, aligned to the display's refresh), not the time a callback happened to
        // run: a frame on time reads one refresh, 16.7 ms, and a missed refresh two.
        let last = await new Promise<number>((resolve) => win.requestAnimationFrame(resolve));
        // No named helpers in here: tsx would wrap them in a `__name` call the page does not have.
        for (
          let step = 0;
          step < 400 &&
          (upwards ? scroller.scrollTop > 0 : scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1);
          step++
        ) {
          scroller.scrollTop = upwards ? Math.max(0, scroller.scrollTop - 600) : scroller.scrollTop + 600;
          const frameTime = await new Promise<number>((resolve) => win.requestAnimationFrame(resolve));
          times.push(frameTime - last);
          last = frameTime;
        }
        return times.sort((a, b) => a - b);
      }, up);
    const stats = (frames: number[]) => ({
      steps: frames.length,
      median: frames[Math.floor(frames.length / 2)] ?? 0,
      p95: frames[Math.min(frames.length - 1, Math.floor(frames.length * 0.95))] ?? 0,
      // Frames that missed their display refresh: an interval of more than one and a half 60 Hz frames.
      // Smooth scrolling has none.
      missed: frames.filter((ms) => ms > 25).length,
      longest: frames.at(-1) ?? 0,
    });
    const cold = stats(await scroll(true));
    await page.getByTestId("msg-human").getByText("Question 0:").waitFor();
    log(
      `web: scrolled to the top in ${cold.steps} steps; frame median ${cold.median.toFixed(1)} ms, p95 ${cold.p95.toFixed(1)} ms, longest ${cold.longest.toFixed(1)} ms, ${cold.missed} missed frames`,
    );
    const warm = stats(await scroll(false));
    log(
      `web: scrolled back down in ${warm.steps} steps; frame median ${warm.median.toFixed(1)} ms, p95 ${warm.p95.toFixed(1)} ms, longest ${warm.longest.toFixed(1)} ms, ${warm.missed} missed frames`,
    );

    // 3. Stream a long answer and count re-renders of earlier messages.
    const streamAnswer = async (words: number) => {
      await page.evaluate(() => {
        const win = globalThis as unknown as { __deerflowRenders: Record<string, number>; __longTasks: number[] };
        win.__deerflowRenders = {};
        win.__longTasks = [];
      });
      const profiler = process.argv.includes("--profile") ? await page.context().newCDPSession(page) : undefined;
      if (profiler) {
        await profiler.send("Profiler.enable");
        await profiler.send("Profiler.start");
      }
      const streamStart = performance.now();
      await page.getByLabel("Message").fill(`Stream a long answer of ${words} words`);
      await page.getByLabel("Message").press("Enter");
      // A run error shows inline instead of the answer: stop there with its text, not after the timeout.
      await page
        .getByText(`END-OF-ANSWER-${words}`)
        .or(page.getByTestId("run-error"))
        .first()
        .waitFor({ timeout: 1_800_000 });
      if (await page.getByTestId("run-error").isVisible())
        throw new Error(`The ${words}-token run failed: ${await page.getByTestId("run-error").innerText()}`);
      const ms = performance.now() - streamStart;
      if (profiler) await printProfile(page, (await profiler.send("Profiler.stop")).profile as CpuProfile);
      const counts = await page.evaluate(
        () => (globalThis as unknown as { __deerflowRenders: Record<string, number> }).__deerflowRenders,
      );
      const longTasks = await page.evaluate(() => (globalThis as unknown as { __longTasks: number[] }).__longTasks);
      const earlier = Object.entries(counts).filter(([id]) => id.startsWith("bench-"));
      const result = {
        words,
        ms,
        earlierRenders: earlier.reduce((sum, [, n]) => sum + n, 0),
        earlierDistinct: earlier.length,
        streamedRenders: Math.max(
          0,
          ...Object.entries(counts)
            .filter(([id]) => !id.startsWith("bench-"))
            .map(([, n]) => n),
        ),
        longTasks: longTasks.length,
        longest: Math.max(0, ...longTasks),
        blocked: longTasks.reduce((sum, n) => sum + n, 0),
      };
      log(
        `web: streamed ${words} words in ${ms.toFixed(0)} ms; earlier messages rendered ${result.earlierRenders} times (${result.earlierDistinct} distinct), the answer ${result.streamedRenders} times; ${result.longTasks} long tasks (longest ${result.longest.toFixed(0)} ms, ${(result.blocked / 1000).toFixed(1)} s in all)`,
      );
      return result;
    };
    let serverOnlyMs: number | undefined;
    const runs = [{ thread: MESSAGES, ...(await streamAnswer(2_000)) }];
    if (!quick) {
      // 4. A 20,000-token answer into the same 1,000-message thread; then the server alone.
      runs.push({ thread: MESSAGES, ...(await streamAnswer(20_000)) });
      const bare = await client.threads.create();
      await client.threads.updateState(bare.thread_id, { values: { messages: history() } });
      const bareStart = performance.now();
      let events = 0;
      const parts = client.runs.stream(bare.thread_id, "lead_agent", {
        input: { messages: [{ type: "human", content: "Stream a long answer of 20000 words" }] },
        streamMode: ["values", "messages-tuple", "updates", "custom"],
      });
      for await (const _ of parts) events++;
      serverOnlyMs = performance.now() - bareStart;
      log(
        `web: the server alone streamed 20000 words (${events} events) to the SDK's Client in ${serverOnlyMs.toFixed(0)} ms`,
      );
    }

    process.stdout.write(
      [
        "",
        "| measure | figure | target |",
        "|---|---|---|",
        `| open a ${MESSAGES.toLocaleString("en")}-message thread (navigation to last message visible) | ${openMs.toFixed(0)} ms | < 1,000 ms |`,
        `| messages in the DOM after opening | ${inDom} of ${MESSAGES} | virtualized |`,
        `| scrolling to the top (rows never rendered), frame time median / p95 / longest, frames over 25 ms (${cold.steps} steps of 600 px) | ${cold.median.toFixed(1)} / ${cold.p95.toFixed(1)} / ${cold.longest.toFixed(1)} ms, ${cold.missed} | smooth: no frame over 25 ms |`,
        `| scrolling back down (rows seen before), frame time median / p95 / longest, frames over 25 ms (${warm.steps} steps) | ${warm.median.toFixed(1)} / ${warm.p95.toFixed(1)} / ${warm.longest.toFixed(1)} ms, ${warm.missed} | smooth: no frame over 25 ms |`,
        ...runs.flatMap((run) => [
          `| streaming a ${run.words.toLocaleString("en")}-token answer into a ${run.thread.toLocaleString("en")}-message thread: renders of earlier messages | ${run.earlierRenders} | 0 |`,
          `| the same: renders of the streamed answer (batched by React) | ${run.streamedRenders} | |`,
          `| the same: time until the whole answer is shown | ${(run.ms / 1000).toFixed(1)} s | |`,
          `| the same: long tasks (> 50 ms) on the page meanwhile: count, longest, total | ${run.longTasks}, ${run.longest.toFixed(0)} ms, ${(run.blocked / 1000).toFixed(1)} s | |`,
        ]),
        ...(serverOnlyMs === undefined
          ? []
          : [
              `| the same 20,000-token answer streamed by the server alone to the SDK's \`Client\` (no browser), into a fresh 1,000-message thread | ${(serverOnlyMs / 1000).toFixed(1)} s | |`,
            ]),
        "",
      ].join("\n"),
    );
  } finally {
    await browser.close();
    await server.stop();
    await fake.close();
  }
}
