/**
 * End-to-end support: a real `deerflow serve` (the built CLI) on an OS-chosen port with a temporary
 * home, and Debian's Chromium driven by playwright-core (which never downloads a browser). Each test
 * runs in `withPage`, which saves a screenshot to packages/web/test-results/ when the test fails. A file
 * that calls `browserForFile()` starts Chromium once and gives each test a fresh context of it (its own
 * cookies and storage) instead of a browser of its own: a launch costs seconds of CPU.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { createTempHome, spawnServe } from "@deerflow/harness/testing";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "../../..");
const cli = path.join(repoRoot, "packages", "cli", "dist", "bin", "main.js");
const webBuild = path.join(repoRoot, "packages", "web", "dist", "index.html");
export const CHROMIUM = process.env.DEERFLOW_CHROMIUM ?? "/usr/bin/chromium";

/** Why the e2e tests cannot run here, or undefined when they can. */
export function skipReason(): string | undefined {
  if (!existsSync(CHROMIUM))
    return `chromium is not installed at ${CHROMIUM} (scripts/setup-chromium.sh installs it as root with apt-get)`;
  if (!existsSync(cli)) return "the CLI is not built (npm run build)";
  if (!existsSync(webBuild)) return "the web app is not built (npm run build -w @deerflow/web)";
  return undefined;
}

/** A running `deerflow serve`. */
export interface Served {
  url: string;
  home: string;
  stderr: () => string;
  /** Stops the server and deletes its home (`keepHome` keeps it for a restart). */
  stop(keepHome?: boolean): Promise<void>;
}

/** Options of {@link serve}. */
export interface ServeOptions {
  configYaml?: string;
  apiKeys?: string;
  port?: number;
  home?: string;
}

/** Starts `deerflow serve --port 0` with a fresh home; `configYaml` is written to its config file. */
export async function serve(options: ServeOptions = {}): Promise<Served> {
  const home = options.home ?? createTempHome({ prefix: "deerflow-e2e-" }).path;
  const args = ["--port", String(options.port ?? 0)];
  if (options.configYaml !== undefined) {
    writeFileSync(path.join(home, "config.yaml"), options.configYaml);
    args.push("--config", path.join(home, "config.yaml"));
  }
  const env = {
    DEER_FLOW_HOME: home,
    DEER_FLOW_API_KEYS: options.apiKeys ?? "",
    OPENAI_API_KEY: "",
    ANTHROPIC_API_KEY: "",
  };
  const server = spawnServe(cli, args, { cwd: home, env });
  return {
    url: await server.url(),
    home,
    stderr: () => server.out.stderr,
    async stop(keepHome = false) {
      await server.stop();
      if (!keepHome) rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * One `deerflow serve` for a whole test file: started in `before` (unless `skip` says the e2e tests
 * cannot run here) and stopped in `after`. The returned object's fields are filled in once it started.
 * `options` may be a function, so a home with files is only made when the server really starts.
 */
export function serveForFile(skip: string | undefined, options: ServeOptions | (() => ServeOptions) = {}): Served {
  const served = {} as Served;
  before(async () => {
    if (!skip) Object.assign(served, await serve(typeof options === "function" ? options() : options));
  });
  after(async () => {
    await served.stop?.();
  });
  return served;
}

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** The file's Chromium when it called `browserForFile()`: launched by the first page, closed after the file. */
let fileBrowser: { browser?: Promise<Browser> } | undefined;

/** One Chromium for every test of this file (call at the top level of an e2e file); each test still gets a fresh context. */
export function browserForFile(): void {
  const shared: { browser?: Promise<Browser> } = {};
  fileBrowser = shared;
  after(async () => {
    const browser = shared.browser;
    shared.browser = undefined;
    await (await browser?.catch(() => undefined))?.close();
  });
}

/**
 * Opens a fresh browser context: in the file's Chromium (see `browserForFile`), else in a Chromium of its own with a
 * temp profile. The browser's language is `locale` (English unless a test asks otherwise, so specs that look for
 * English text do not depend on the machine's language).
 */
export async function openBrowser(
  viewport = { width: 1280, height: 800 },
  locale = "en-US",
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (fileBrowser) {
    fileBrowser.browser ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const context = await (await fileBrowser.browser).newContext({ viewport, acceptDownloads: true, locale });
    return { context, close: () => context.close() };
  }
  const profile = createTempHome({ prefix: "deerflow-chromium-" });
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    locale,
    acceptDownloads: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    async close() {
      await context.close();
      profile.cleanup();
    },
  };
}

/** Runs `body` with a page (the browser's language is `locale`); on failure saves a screenshot named after the test and rethrows. */
export async function withPage(
  name: string,
  body: (page: Page, context: BrowserContext) => Promise<void>,
  viewport?: { width: number; height: number },
  locale?: string,
): Promise<void> {
  const browser = await openBrowser(viewport, locale);

  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  try {
    await body(page, browser.context);
  } catch (error) {
    const dir = path.join(repoRoot, "packages", "web", "test-results");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${name.replace(/[^a-z0-9]+/gi, "-")}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    const note = `screenshot: ${file}${errors.length ? `; page errors: ${errors.join(" | ")}` : ""}`;
    throw Object.assign(error as Error, { message: `${(error as Error).message}\n${note}` });
  } finally {
    await browser.close();
  }
}

/** Types a task into the composer and sends it with Enter. */
export async function sendTask(page: Page, text: string): Promise<void> {
  await page.getByLabel("Message").fill(text);
  await page.getByLabel("Message").press("Enter");
}
