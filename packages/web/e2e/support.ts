/**
 * End-to-end support: a real `deerflow serve` (the built CLI) on an OS-chosen port with a temporary
 * home, and Debian's Chromium driven by playwright-core (which never downloads a browser). Each test
 * runs in `withPage`, which saves a screenshot to packages/web/test-results/ when the test fails.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "../../..");
const cli = path.join(repoRoot, "packages", "cli", "dist", "main.js");
const webBuild = path.join(repoRoot, "packages", "web", "dist", "index.html");
export const CHROMIUM = process.env.DEERFLOW_CHROMIUM ?? "/usr/bin/chromium";

/** Why the e2e tests cannot run here, or undefined when they can. */
export function skipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `chromium is not installed at ${CHROMIUM} (scripts/setup-chromium.sh installs it as root with apt-get)`;
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

/** Starts `deerflow serve --port 0` with a fresh home; `configYaml` is written to its config file. */
export async function serve(options: { configYaml?: string; apiKeys?: string; port?: number; home?: string } = {}): Promise<Served> {
  const home = options.home ?? mkdtempSync(path.join(tmpdir(), "deerflow-e2e-"));
  const args = [cli, "serve", "--port", String(options.port ?? 0)];
  if (options.configYaml !== undefined) {
    writeFileSync(path.join(home, "config.yaml"), options.configYaml);
    args.push("--config", path.join(home, "config.yaml"));
  }
  const env = { ...process.env, DEER_FLOW_HOME: home, DEER_FLOW_API_KEYS: options.apiKeys ?? "", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" };
  const child: ChildProcess = spawn(process.execPath, args, { cwd: home, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 30_000;
  while (!/listening on (http:\/\/\S+)/.test(stdout)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`deerflow serve did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: /listening on (http:\/\/\S+)/.exec(stdout)![1]!,
    home,
    stderr: () => stderr,
    async stop(keepHome = false) {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      if (!keepHome) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Opens Chromium with a fresh profile. */
export async function openBrowser(viewport = { width: 1280, height: 800 }): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), "deerflow-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    acceptDownloads: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Runs `body` with a page; on failure saves a screenshot named after the test and rethrows. */
export async function withPage(name: string, body: (page: Page, context: BrowserContext) => Promise<void>, viewport?: { width: number; height: number }): Promise<void> {
  const browser = await openBrowser(viewport);
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
