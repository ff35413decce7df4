/**
 * `npm run bench -- cli-thread [--quick]`: what a long CLI thread of short turns leaves on disk.
 *
 * Issue 15 reported a real CLI thread of 300 short turns leaving 131 MB in the home directory. This
 * replays that shape through the real CLI: one `deerflow chat --thread ID` process (packages/cli/dist,
 * so build first) reading 300 short user lines from a pipe, in a fresh home, with the fake OpenAI server
 * as the model answering each turn with a short reply at once. Everything else is the CLI's default
 * (checkpoint retention `runs`, summarization, sandbox), except memory and titles, which would make
 * background model calls the fake model cannot answer meaningfully. It then reports the home
 * directory's size on disk (`du`) and the database file's size.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startFakeOpenAIServer } from "@deerflow/harness/testing";

/** Each user line and answer is about 150–200 characters: the issue's 52 KB over 300 turns. */
const userLine = (turn: number) =>
  `Turn ${turn}: please note that item ${turn} of the checklist is done, the next one is ${turn + 1}, and tell me in one line what is left.`;
const answerFor = (turn: number) =>
  `Noted: item ${turn} is done and item ${turn + 1} is next. Everything after it on the checklist is still open; say when you want a recap.`;

export interface CliThreadFigures {
  turns: number;
  homeDiskBytes: number;
  homeApparentBytes: number;
  databaseBytes: number;
  conversationBytes: number;
  wallMs: number;
}

/** Runs the thread and measures the home directory. */
export async function cliThread(
  root: string,
  turns: number,
  log: (line: string) => void,
  keep = false,
): Promise<CliThreadFigures> {
  const cli = path.join(root, "packages/cli/dist/bin/main.js");
  let conversationBytes = 0;
  const fake = await startFakeOpenAIServer({
    script: (body) => {
      const last = [...body.messages].reverse().find((message) => message.role === "user");
      const turn = Number(/Turn (\d+):/.exec(String(last?.content ?? ""))?.[1] ?? 0);
      return { content: answerFor(turn), usage: { prompt_tokens: 10, completion_tokens: 30, total_tokens: 40 } };
    },
  });
  const scratch = mkdtempSync(path.join(os.tmpdir(), "deerflow-bench-cli-"));
  try {
    const home = path.join(scratch, "home");
    const config = path.join(scratch, "config.yaml");
    writeFileSync(
      config,
      [
        "models:",
        `  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${fake.url}', max_retries: 0}`,
        "memory: {enabled: false}",
        "title: {enabled: false}",
        "",
      ].join("\n"),
    );
    const lines = Array.from({ length: turns }, (_, index) => userLine(index + 1));
    for (const [index, line] of lines.entries())
      conversationBytes += Buffer.byteLength(line) + Buffer.byteLength(answerFor(index + 1));
    const start = performance.now();
    const child = spawn(process.execPath, [cli, "chat", "--config", config, "--thread", "cli-bench"], {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? "", DEER_FLOW_HOME: home },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let answers = 0;
    let errors = "";
    child.stdout.on("data", (chunk: Buffer) => {
      const seen = chunk.toString().match(/agent> /g)?.length ?? 0;
      answers += seen;
      if (seen > 0 && answers % 50 < seen) log(`  cli-thread: ${answers}/${turns} turns`);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      if (/error/i.test(text)) errors += text;
    });
    child.stdin.end(`${lines.join("\n")}\n/exit\n`);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const wallMs = performance.now() - start;
    if (code !== 0 || answers !== turns)
      throw new Error(
        `deerflow chat exited ${code} after ${answers}/${turns} answers${errors ? `: ${errors.slice(0, 500)}` : ""}`,
      );
    const du = (flags: string[]) =>
      Number(spawnSync("du", [...flags, home], { encoding: "utf8" }).stdout.split(/\s/)[0]);
    const database = path.join(home, "checkpoints.sqlite");
    const databaseBytes = ["", "-wal"].reduce((sum, suffix) => sum + (fileSize(database + suffix) ?? 0), 0);
    return {
      turns,
      homeDiskBytes: du(["-sk"]) * 1024,
      homeApparentBytes: du(["-sb"]),
      databaseBytes,
      conversationBytes,
      wallMs,
    };
  } finally {
    await fake.close();
    if (keep) log(`  cli-thread: kept ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

function fileSize(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

/** The figures as a markdown table. */
export function cliThreadTable(figures: CliThreadFigures): string {
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  return [
    `| \`deerflow chat\`, ${figures.turns} short turns, default retention | Figure |`,
    "|---|---|",
    `| Home directory on disk (\`du -sk\`) | ${mb(figures.homeDiskBytes)} |`,
    `| Home directory, apparent size (\`du -sb\`) | ${mb(figures.homeApparentBytes)} |`,
    `| checkpoints.sqlite (with its WAL) | ${mb(figures.databaseBytes)} |`,
    `| Conversation (user lines and answers) | ${(figures.conversationBytes / 1e3).toFixed(1)} KB |`,
    `| Disk per turn | ${(figures.homeDiskBytes / figures.turns / 1024).toFixed(1)} KiB |`,
    `| Wall time of the whole chat | ${(figures.wallMs / 1000).toFixed(1)} s |`,
    `| Target: under 15 MB at 300 turns | ${figures.turns === 300 ? (figures.homeDiskBytes < 15e6 ? "met" : "**missed**") : "(quick run: not judged)"} |`,
  ].join("\n");
}
