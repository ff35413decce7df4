/**
 * The scheduled tasks page (Vitest + jsdom + Testing Library): a preset fills in its cron expression
 * and an expression that matches a preset selects it; the preview lists the next five due times in the
 * chosen time zone; and through the real SDK client against a scripted server, the request a new task
 * sends and the server's 422 shown under the field it is about (the schedule, or the time zone).
 */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { makeClient } from "../src/api";
import { SchedulesPage } from "../src/schedules/SchedulesPage";
import { TaskForm } from "../src/schedules/TaskForm";

/** A Friday, 08:00 in Shanghai and 19:00 the evening before in New York. */
const NOW = new Date("2026-11-27T00:00:00Z");

/** The due times the preview lists, as the instants its `<time>` elements carry. */
function previewInstants(): string[] {
  return within(screen.getByRole("list", { name: "Next runs" }))
    .getAllByRole("listitem")
    .map((item) => item.querySelector("time")!.getAttribute("datetime")!);
}

const schedule = () => screen.getByLabelText("Cron schedule") as HTMLInputElement;
const repeat = () => screen.getByLabelText("Repeat") as HTMLSelectElement;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the new task form", () => {
  it("fills in a preset's cron expression and selects the preset an expression matches", () => {
    render(<TaskForm onCreate={async () => undefined} defaultTimezone="UTC" now={NOW} />);
    expect(schedule().value).toBe("0 9 * * 1-5");
    expect(repeat().selectedOptions[0]!.textContent).toBe("Every weekday at 9:00");

    for (const [label, cron] of [
      ["Every day at 8:00", "0 8 * * *"],
      ["Every Monday at 9:00", "0 9 * * 1"],
      ["Every hour", "0 * * * *"],
    ]) {
      fireEvent.change(repeat(), { target: { value: [...repeat().options].find((o) => o.text === label)!.value } });
      expect(schedule().value).toBe(cron);
    }

    fireEvent.change(schedule(), { target: { value: "0  8 * * *" } });
    expect(repeat().selectedOptions[0]!.textContent).toBe("Every day at 8:00");
    fireEvent.change(schedule(), { target: { value: "*/15 * * * *" } });
    expect(repeat().selectedOptions[0]!.textContent).toBe("Custom (cron expression)");
  });

  it("previews the next five due times in the chosen time zone", () => {
    render(<TaskForm onCreate={async () => undefined} defaultTimezone="Asia/Shanghai" now={NOW} />);
    expect((screen.getByLabelText("Time zone") as HTMLInputElement).value).toBe("Asia/Shanghai");
    // Weekdays at 09:00 in Shanghai are 01:00 UTC: Friday, then Monday to Thursday.
    expect(previewInstants()).toEqual([
      "2026-11-27T01:00:00.000Z",
      "2026-11-30T01:00:00.000Z",
      "2026-12-01T01:00:00.000Z",
      "2026-12-02T01:00:00.000Z",
      "2026-12-03T01:00:00.000Z",
    ]);
    for (const item of screen.getAllByRole("listitem")) expect(item.textContent).toContain("09:00");
    expect(screen.getByText("Next 5 runs (Asia/Shanghai)")).toBeTruthy();

    // The same schedule read in New York (UTC-5 in winter).
    fireEvent.change(screen.getByLabelText("Time zone"), { target: { value: "America/New_York" } });
    expect(previewInstants()[0]).toBe("2026-11-27T14:00:00.000Z");
    expect(previewInstants()).toHaveLength(5);
    for (const item of screen.getAllByRole("listitem")) expect(item.textContent).toContain("09:00");

    fireEvent.change(schedule(), { target: { value: "0 9 * *" } });
    expect(screen.queryByRole("list", { name: "Next runs" })).toBeNull();
    expect(screen.getByTestId("preview-problem").textContent).toContain("this has 4");
  });

  it("defaults the time zone to the browser's", () => {
    render(<TaskForm onCreate={async () => undefined} now={NOW} />);
    expect((screen.getByLabelText("Time zone") as HTMLInputElement).value).toBe(
      Intl.DateTimeFormat().resolvedOptions().timeZone,
    );
  });
});

/** One request the scripted server saw. */
interface Seen {
  method: string;
  path: string;
  body: unknown;
}

/** Replaces `fetch` with a server answering from `routes` ("METHOD /path" → status and JSON body). */
function scriptServer(routes: Record<string, (seen: Seen) => { status?: number; body?: unknown }>): Seen[] {
  const seen: Seen[] = [];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input instanceof Request ? input.url : input), window.location.origin);
    const method = (init.method ?? "GET").toUpperCase();
    const request: Seen = {
      method,
      path: url.pathname.replace(/^\/api/, ""),
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
    };
    seen.push(request);
    const route = routes[`${method} ${request.path}`];
    if (!route) throw new Error(`unexpected request ${method} ${request.path}`);
    const answer = route(request);
    return new Response(JSON.stringify(answer.body ?? {}), {
      status: answer.status ?? 200,
      headers: { "content-type": "application/json" },
    });
  });
  return seen;
}

const BAD_SCHEDULE =
  'Invalid schedule "61 9 * * *": CronPattern: Invalid value for minute: 61. Use five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5" (09:00 on weekdays) or "*/15 * * * *" (every 15 minutes).';

describe("creating a task through the crons API", () => {
  it("sends a stateless lead_agent cron that keeps its threads, and shows the server's 422 under the schedule", async () => {
    const seen = scriptServer({
      "POST /runs/crons/search": () => ({ body: [] }),
      "POST /runs/crons": ({ body }) =>
        (body as { schedule: string }).schedule.startsWith("61")
          ? { status: 422, body: { detail: BAD_SCHEDULE } }
          : { body: { cron_id: "c1", ...(body as object) } },
    });
    render(<SchedulesPage client={makeClient(undefined)} />);
    await screen.findByText("No scheduled tasks yet.");

    fireEvent.change(screen.getByLabelText("Prompt"), { target: { value: "Summarise the overnight alerts" } });
    fireEvent.change(screen.getByLabelText("Time zone"), { target: { value: "Europe/Lisbon" } });
    fireEvent.click(screen.getByRole("button", { name: "Create task" }));
    await vi.waitFor(() => expect(seen.filter((one) => one.path === "/runs/crons")).toHaveLength(1));
    expect(seen.find((one) => one.path === "/runs/crons")!.body).toMatchObject({
      assistant_id: "lead_agent",
      input: { messages: [{ role: "user", content: "Summarise the overnight alerts" }] },
      schedule: "0 9 * * 1-5",
      timezone: "Europe/Lisbon",
      on_run_completed: "keep",
    });
    await vi.waitFor(() => expect((screen.getByLabelText("Prompt") as HTMLTextAreaElement).value).toBe(""));

    fireEvent.change(screen.getByLabelText("Prompt"), { target: { value: "Check the queue" } });
    fireEvent.change(schedule(), { target: { value: "61 9 * * *" } });
    expect(screen.getByTestId("preview-problem")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Create task" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe(BAD_SCHEDULE);
    expect(schedule().getAttribute("aria-invalid")).toBe("true");
    expect(schedule().getAttribute("aria-describedby")!.split(" ")).toContain(alert.id);
    expect((screen.getByLabelText("Prompt") as HTMLTextAreaElement).value).toBe("Check the queue");
  });

  it("shows a 422 about the time zone under the zone field", async () => {
    const detail = 'Invalid timezone "Mars/Olympus": not an IANA time zone. Use a name such as "UTC".';
    scriptServer({
      "POST /runs/crons/search": () => ({ body: [] }),
      "POST /runs/crons": () => ({ status: 422, body: { detail } }),
    });
    render(<SchedulesPage client={makeClient(undefined)} />);
    await screen.findByText("No scheduled tasks yet.");
    fireEvent.change(screen.getByLabelText("Prompt"), { target: { value: "Check the queue" } });
    fireEvent.change(screen.getByLabelText("Time zone"), { target: { value: "Mars/Olympus" } });
    expect(screen.getByTestId("preview-problem").textContent).toContain("not a time zone this browser knows");
    fireEvent.click(screen.getByRole("button", { name: "Create task" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe(detail);
    expect(screen.getByLabelText("Time zone").getAttribute("aria-describedby")).toBe(alert.id);
    expect(schedule().getAttribute("aria-invalid")).toBeNull();
  });
});
