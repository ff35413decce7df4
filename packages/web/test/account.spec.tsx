/**
 * Accounts in the web app (Vitest + jsdom + Testing Library, `fetch` replaced by a scripted server):
 * which page a `me` answer leads to, the sign-in and setup pages and their errors, the CSRF header on
 * writes, API tokens (the secret shown once, copy, revoke), the admin's users page, and a refused run
 * or upload showing the server's reason.
 */
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { accessAfter401 } from "../src/account/access";
import type { Providers } from "../src/account/account-api";
import { FirstAdmin } from "../src/account/FirstAdmin";
import { quotaPatch, usageOf } from "../src/account/quotas";
import { SignIn } from "../src/account/SignIn";
import { TokensPage } from "../src/account/TokensPage";
import { UsersPage } from "../src/account/UsersPage";
import { App } from "../src/App";
import { authFetch, errorDetail } from "../src/api";
import { Composer } from "../src/chat/Composer";
import { uploadFiles } from "../src/chat/uploads";

/** One request the scripted server saw. */
interface Seen {
  method: string;
  path: string;
  headers: Headers;
  body: unknown;
}

/**
 * Replaces `fetch` with a server answering from `routes` ("METHOD /path" → status and JSON body, or a
 * function of the request); an unexpected request fails the test loudly.
 */
function scriptServer(
  routes: Record<string, { status?: number; body?: unknown } | ((seen: Seen) => { status?: number; body?: unknown })>,
): Seen[] {
  const seen: Seen[] = [];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input instanceof Request ? input.url : input), window.location.origin);
    const method = (init.method ?? "GET").toUpperCase();
    const text = typeof init.body === "string" ? init.body : undefined;
    const request: Seen = {
      method,
      path: url.pathname.replace(/^\/api/, ""),
      headers: new Headers(init.headers),
      body: text ? JSON.parse(text) : init.body,
    };
    seen.push(request);
    const route = routes[`${method} ${request.path}`];
    if (!route) throw new Error(`unexpected request ${method} ${request.path}`);
    const answer = typeof route === "function" ? route(request) : route;
    const status = answer.status ?? 200;
    return new Response(status === 204 ? null : JSON.stringify(answer.body ?? {}), {
      status,
      headers: { "content-type": "application/json" },
    });
  });
  return seen;
}

/** Sets a cookie for the page (jsdom has no Cookie Store API). */
function setCookie(cookie: string): void {
  // biome-ignore lint/suspicious/noDocumentCookie: jsdom implements only document.cookie
  document.cookie = cookie;
}

const NO_PROVIDERS: Providers = { providers: [], local: true, allow_registration: false };
const providers = (oidc: boolean): Providers => ({
  ...NO_PROVIDERS,
  providers: oidc ? [{ id: "oidc", name: "Company SSO", type: "oidc" }] : [],
});

beforeEach(() => {
  // jsdom does not lay out: the chat's scroll-to-bottom has nothing to do.
  Element.prototype.scrollIntoView ??= () => {};
  setCookie("csrf_token=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/");
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  sessionStorage.clear();
  localStorage.clear();
  window.history.replaceState(null, "", "/");
});

describe("where a 401 from me leads", () => {
  it("an admin exists: the sign-in page", () => {
    expect(
      accessAfter401({ keySent: false, detail: "Sign in first: …", needsSetup: false, providers: NO_PROVIDERS }),
    ).toEqual({ kind: "sign-in", providers: NO_PROVIDERS });
  });
  it("accounts required and nobody yet: the first admin's setup", () => {
    expect(
      accessAfter401({ keySent: false, detail: "Sign in first: send …", needsSetup: true, providers: NO_PROVIDERS }),
    ).toEqual({ kind: "setup" });
  });
  it("a server with only API keys: the key form, as before accounts", () => {
    expect(
      accessAfter401({
        keySent: false,
        detail: "Missing API key. Send it …",
        needsSetup: true,
        providers: NO_PROVIDERS,
      }),
    ).toEqual({ kind: "key", rejected: false, accounts: false });
  });
  it("a refused key on a server with accounts: the key form offering the sign-in page", () => {
    expect(
      accessAfter401({
        keySent: true,
        detail: "Invalid API key or token.",
        needsSetup: false,
        providers: NO_PROVIDERS,
      }),
    ).toEqual({ kind: "key", rejected: true, accounts: true, providers: NO_PROVIDERS });
  });
});

describe("App gate", () => {
  it("accounts off (me answers the local user): the chat, and no sign-in or account UI", async () => {
    scriptServer({
      "GET /v1/auth/me": { body: { id: "default", email: "default@test.local", system_role: "admin" } },
      "POST /threads/search": { body: [] },
      "GET /models": { body: { models: [] } },
    });
    render(<App />);
    await screen.findByText("What should DeerFlow do?");
    expect(screen.queryByText(/Sign in/)).toBeNull();
    expect(screen.queryByRole("button", { name: /^Account/ })).toBeNull();
  });

  it("accounts required and nobody set up: the setup page", async () => {
    scriptServer({
      "GET /v1/auth/me": { status: 401, body: { detail: "Sign in first: send an API token …" } },
      "GET /v1/auth/setup-status": { body: { needs_setup: true } },
      "GET /v1/auth/providers": { body: NO_PROVIDERS },
    });
    render(<App />);
    await screen.findByRole("heading", { name: "Set up DeerFlow" });
  });

  it("signed in: the account menu names the user and offers the account pages", async () => {
    scriptServer({
      "GET /v1/auth/me": { body: { id: "u1", name: "ada", email: "ada", system_role: "user", admin: false } },
      "POST /threads/search": { body: [] },
      "GET /models": { body: { models: [] } },
    });
    render(<App />);
    fireEvent.click(await screen.findByRole("button", { name: "Account: ada" }));
    const menu = screen.getByRole("menu", { name: "Account" });
    expect(
      within(menu)
        .getAllByRole("menuitem")
        .map((item) => item.textContent?.trim()),
    ).toEqual(["API tokens", "Change password", "Sign out"]);
  });
});

describe("SignIn", () => {
  it("shows the server's reason for a wrong password and for too many tries", async () => {
    let answer = { status: 401, body: { detail: "Wrong user name or password." } };
    const seen = scriptServer({ "POST /v1/auth/login/local": () => answer });
    const onSignedIn = vi.fn();
    render(<SignIn providers={NO_PROVIDERS} onSignedIn={onSignedIn} onUseKey={() => {}} />);
    fireEvent.change(screen.getByLabelText("User name or email"), { target: { value: "ada" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "nope-nope" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Wrong user name or password.");
    expect(seen[0]!.body).toEqual({ email: "ada", password: "nope-nope" });

    answer = { status: 429, body: { detail: "Too many failed sign-ins. Try again in 42 seconds." } };
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await screen.findByText("Too many failed sign-ins. Try again in 42 seconds.");
    expect(onSignedIn).not.toHaveBeenCalled();
  });

  it("offers the single sign-on button only when the server lists a provider", () => {
    const { unmount } = render(<SignIn providers={providers(false)} onSignedIn={() => {}} onUseKey={() => {}} />);
    expect(screen.queryByRole("button", { name: /Sign in with/ })).toBeNull();
    unmount();
    render(<SignIn providers={providers(true)} onSignedIn={() => {}} onUseKey={() => {}} />);
    screen.getByRole("button", { name: "Sign in with Company SSO" });
  });
});

describe("FirstAdmin", () => {
  it("refuses two different passwords without asking the server", () => {
    const seen = scriptServer({});
    render(<FirstAdmin onDone={() => {}} onAlreadySetUp={() => {}} onUseKey={() => {}} />);
    fireEvent.change(screen.getByLabelText("Email or user name"), { target: { value: "admin@example.com" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "correct horse" } });
    fireEvent.change(screen.getByLabelText("Repeat password"), { target: { value: "correct hose" } });
    fireEvent.click(screen.getByRole("button", { name: "Create admin account" }));
    screen.getByText("The two passwords differ. Type the same password twice.");
    expect(seen).toEqual([]);
  });

  it("a server with API keys refuses: says why and offers the key form", async () => {
    scriptServer({
      "POST /v1/auth/initialize": {
        status: 403,
        body: {
          detail: "This server has API keys, so its first admin is created with `deerflow users add NAME --admin`.",
        },
      },
    });
    const onUseKey = vi.fn();
    render(<FirstAdmin onDone={() => {}} onAlreadySetUp={() => {}} onUseKey={onUseKey} />);
    fireEvent.change(screen.getByLabelText("Email or user name"), { target: { value: "admin" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "correct horse" } });
    fireEvent.change(screen.getByLabelText("Repeat password"), { target: { value: "correct horse" } });
    fireEvent.click(screen.getByRole("button", { name: "Create admin account" }));
    await screen.findByText(/This server has API keys/);
    fireEvent.click(screen.getByRole("button", { name: "Enter a server key" }));
    expect(onUseKey).toHaveBeenCalledOnce();
  });
});

describe("the CSRF header", () => {
  it("goes on writes (from the csrf_token cookie), never on reads", async () => {
    setCookie("csrf_token=abc123; path=/");
    const seen = scriptServer({ "GET /ok": { body: {} }, "DELETE /threads/t1": { status: 204 } });
    await authFetch("/api/ok");
    await authFetch("/api/threads/t1", { method: "DELETE" });
    expect(seen[0]!.headers.get("x-csrf-token")).toBeNull();
    expect(seen[1]!.headers.get("x-csrf-token")).toBe("abc123");
  });
});

describe("TokensPage", () => {
  it("creates a token, shows its secret once with Copy, and revokes after a confirmation", async () => {
    let tokens = [
      { id: "t1", name: "old script", prefix: "dft_ab12", created_at: "2025-01-01T00:00:00Z", last_used_at: null },
    ];
    const seen = scriptServer({
      "GET /v1/auth/tokens": () => ({ body: { tokens } }),
      "POST /v1/auth/tokens": (request) => {
        const made = {
          id: "t2",
          name: (request.body as { name: string }).name,
          prefix: "dft_cd34",
          created_at: "2025-01-02T00:00:00Z",
          last_used_at: null,
        };
        tokens = [...tokens, made];
        return { status: 201, body: { ...made, token: "dft_cd34-the-whole-secret" } };
      },
      "DELETE /v1/auth/tokens/t1": () => {
        tokens = tokens.filter((token) => token.id !== "t1");
        return { status: 204 };
      },
    });
    const writeText = vi.fn(async () => {});
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    render(<TokensPage apiKey={undefined} />);
    await screen.findByText("old script");

    fireEvent.change(screen.getByLabelText("Token label"), { target: { value: "ci" } });
    fireEvent.click(screen.getByRole("button", { name: "Create token" }));
    const secret = (await screen.findByLabelText("Secret token")) as HTMLInputElement;
    expect(secret.value).toBe("dft_cd34-the-whole-secret");
    screen.getByText(/it will not be shown again/);
    fireEvent.click(screen.getByRole("button", { name: "Copy" }));
    await screen.findByRole("button", { name: "Copied" });
    expect(writeText).toHaveBeenCalledWith("dft_cd34-the-whole-secret");
    fireEvent.click(screen.getByRole("button", { name: "Done" }));
    expect(screen.queryByText("dft_cd34-the-whole-secret")).toBeNull();
    expect(screen.queryByLabelText("Secret token")).toBeNull();
    expect(screen.getAllByTestId("token-row")).toHaveLength(2);

    fireEvent.click(screen.getByRole("button", { name: "Revoke old script" }));
    expect(seen.some((request) => request.method === "DELETE")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Revoke" }));
    await vi.waitFor(() => expect(screen.getAllByTestId("token-row")).toHaveLength(1));
    expect(seen.filter((request) => request.method === "DELETE").map((r) => r.path)).toEqual(["/v1/auth/tokens/t1"]);
  });
});

describe("UsersPage", () => {
  const quotas = { concurrent_runs: 4, runs_per_day: null, tokens_per_day: null, upload_bytes_per_day: null };
  const user = (id: string, name: string, admin: boolean) => ({
    id,
    name,
    email: name,
    system_role: admin ? "admin" : "user",
    admin,
    created_at: "2025-01-01T00:00:00Z",
    quotas: {},
    effective_quotas: { ...quotas, runs_per_day: id === "u2" ? 20 : null },
    usage: { day: "2025-01-02", runs: 3, tokens: 1234, upload_bytes: 2048, active_runs: 1 },
  });

  it("shows usage against limits, edits only the changed limit, and removes after a confirmation naming the threads", async () => {
    const seen = scriptServer({
      "GET /v1/admin/users": {
        body: { users: [user("u1", "root", true), user("u2", "bob", false)], default_quotas: quotas },
      },
      "PATCH /v1/admin/users/u2": { body: {} },
      "DELETE /v1/admin/users/u2": { status: 204 },
    });
    render(<UsersPage apiKey={undefined} me={{ id: "u1", email: "root", system_role: "admin", admin: true }} />);
    const bob = await screen.findByText("bob");
    const row = bob.closest("tr")!;
    within(row).getByText("3 / 20");
    within(row).getByText("2.0 KB / no limit");
    expect((screen.getByLabelText("Role of root") as HTMLSelectElement).disabled).toBe(true);
    expect(screen.queryByRole("button", { name: "Remove root" })).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Edit limits of bob" }));
    fireEvent.change(screen.getByLabelText("Runs per day"), { target: { value: "" } });
    fireEvent.click(screen.getByRole("button", { name: "Save limits" }));
    await vi.waitFor(() => expect(seen.some((request) => request.method === "PATCH")).toBe(true));
    expect(seen.find((request) => request.method === "PATCH")!.body).toEqual({ quotas: { runs_per_day: null } });

    fireEvent.click(screen.getByRole("button", { name: "Remove bob" }));
    screen.getByText(/deletes all their threads/);
    expect(seen.some((request) => request.method === "DELETE")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Remove user" }));
    await vi.waitFor(() => expect(seen.some((request) => request.method === "DELETE")).toBe(true));
  });

  it("creates a user and shows their first token once", async () => {
    const seen = scriptServer({
      "GET /v1/admin/users": { body: { users: [user("u1", "root", true)], default_quotas: quotas } },
      "POST /v1/admin/users": { status: 201, body: { ...user("u3", "carol", false), token: "dft_first-token" } },
    });
    render(<UsersPage apiKey={undefined} me={{ id: "u1", email: "root", system_role: "admin", admin: true }} />);
    await screen.findByText("root");
    fireEvent.change(screen.getByLabelText("New user's name or email"), { target: { value: "carol" } });
    fireEvent.change(screen.getByLabelText("New user's password"), { target: { value: "carol-password" } });
    fireEvent.click(screen.getByRole("button", { name: "Create user" }));
    expect(((await screen.findByLabelText("Secret token")) as HTMLInputElement).value).toBe("dft_first-token");
    screen.getByText("First API token of carol");
    expect(seen.find((request) => request.method === "POST")!.body).toEqual({
      name: "carol",
      password: "carol-password",
      admin: false,
    });
  });
});

describe("quotas", () => {
  const effective = { concurrent_runs: 4, runs_per_day: null, tokens_per_day: 1000, upload_bytes_per_day: null };
  const form = { concurrent_runs: "4", runs_per_day: "", tokens_per_day: "1000", upload_bytes_per_day: "" };
  it("sends only what changed; blank is no limit", () => {
    expect(quotaPatch(effective, form)).toEqual({ patch: {} });
    expect(quotaPatch(effective, { ...form, concurrent_runs: "2", tokens_per_day: "" })).toEqual({
      patch: { concurrent_runs: 2, tokens_per_day: null },
    });
  });
  it("refuses text that is not a whole number, naming the field", () => {
    expect(quotaPatch(effective, { ...form, runs_per_day: "1.5" })).toEqual({
      error: 'Runs per day: "1.5" is not a whole number. Enter 0 or more, or leave it blank for no limit.',
    });
  });
  it("reads usage against a limit", () => {
    expect(usageOf(3, null)).toBe("3 / no limit");
    expect(usageOf(1536, 1048576, true)).toBe("1.5 KB / 1.0 MB");
  });
});

describe("refusals (429) reach the person", () => {
  it("errorDetail unwraps the SDK's HTTP error text", () => {
    expect(errorDetail(new Error('HTTP 429: {"detail":"Daily run limit (20) reached for \\"bob\\"."}'))).toBe(
      'Daily run limit (20) reached for "bob".',
    );
    expect(errorDetail(new Error("HTTP 429: Daily upload limit reached."))).toBe("Daily upload limit reached.");
  });

  it("a refused run keeps the text in the composer and shows the server's reason there", async () => {
    const onSend = vi.fn(async () => ({ error: "Daily run limit (20) reached. It resets at 00:00 UTC." }));
    render(<Composer draftKey="q1" running={false} onSend={onSend} onStop={() => {}} />);
    const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: "one more task" } });
    fireEvent.keyDown(box, { key: "Enter" });
    expect((await screen.findByTestId("composer-error")).textContent).toBe(
      "Daily run limit (20) reached. It resets at 00:00 UTC.",
    );
    expect(box.value).toBe("one more task");
  });

  it("a refused upload names the quota on the file's chip", async () => {
    scriptServer({
      "POST /threads/t1/uploads": { status: 429, body: { detail: "Daily upload limit (10 MB) reached." } },
    });
    const outcome = await uploadFiles("t1", [new File(["x"], "a.txt")], undefined);
    expect(outcome).toEqual({ stored: [], refused: { "a.txt": "Daily upload limit (10 MB) reached." } });
  });
});

// The gate asks `me` again after a sign-in: the menu appears without a reload.
describe("signing in", () => {
  it("goes from the sign-in page to the app", async () => {
    let signedIn = false;
    scriptServer({
      "GET /v1/auth/me": () =>
        signedIn
          ? { body: { id: "u1", name: "ada", email: "ada", system_role: "user", admin: false } }
          : { status: 401, body: { detail: "Sign in first: …" } },
      "GET /v1/auth/setup-status": { body: { needs_setup: false } },
      "GET /v1/auth/providers": { body: NO_PROVIDERS },
      "POST /v1/auth/login/local": () => {
        signedIn = true;
        return { body: {} };
      },
      "POST /threads/search": { body: [] },
      "GET /models": { body: { models: [] } },
    });
    render(<App />);
    fireEvent.change(await screen.findByLabelText("User name or email"), { target: { value: "ada" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "ada-password" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Sign in" })));
    await screen.findByRole("button", { name: "Account: ada" });
  });
});

describe("Chat: a run the server refuses", () => {
  it("keeps the text, shows the quota's reason in the composer, and drops the optimistic message", async () => {
    const { Chat } = await import("../src/chat/Chat");
    const { makeClient } = await import("../src/api");
    const seen = scriptServer({
      "POST /threads/t1/history": { body: [] },
      "GET /threads/t1/state": { body: { values: { messages: [] }, next: [], checkpoint: null } },
      "POST /threads/t1/runs/stream": {
        status: 429,
        body: { detail: "Daily run limit (20) reached; it resets at 00:00 UTC." },
      },
    });
    render(
      <Chat
        client={makeClient(undefined)}
        apiKey={undefined}
        threadId="t1"
        settings={{ planMode: false, thinking: false, subagents: false, model: "", theme: "system" }}
        onThreadCreated={() => {}}
        onRunFinished={() => {}}
        onUnauthorized={() => {}}
        onState={() => {}}
        onOpenArtifact={() => {}}
      />,
    );
    const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: "one task too many" } });
    fireEvent.keyDown(box, { key: "Enter" });
    expect((await screen.findByTestId("composer-error")).textContent).toBe(
      "Daily run limit (20) reached; it resets at 00:00 UTC.",
    );
    expect(box.value).toBe("one task too many");
    expect(screen.queryByTestId("run-error")).toBeNull();
    expect(screen.queryByText("one task too many", { selector: ".bubble, .bubble *" })).toBeNull();
    expect(seen.filter((request) => request.method === "POST" && request.path.endsWith("/runs/stream"))).toHaveLength(
      1,
    );
  });
});
