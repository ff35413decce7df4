/**
 * Temp project folders for the CLI's end-to-end tests whose config.yaml points at the fake OpenAI
 * server, removed when the test file is done; and the script both `deerflow history` tests give it.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after } from "node:test";
import { type ChatCompletionRequest, createTempHome, type FakeStep, type TempHome } from "@deerflow/harness/testing";

/**
 * Call at the top of a test file: `withModel(url, extra)` makes a folder whose config.yaml has the fake
 * model at `url`, the local sandbox, then `defaults` and `extra`; `empty()` makes one with no config.
 */
export function fakeModelProjects(prefix: string, defaults = "") {
  const dirs: TempHome[] = [];
  after(() => dirs.forEach((dir) => dir.cleanup()));
  const empty = (): string => {
    const dir = createTempHome({ prefix });
    dirs.push(dir);
    return dir.path;
  };
  return {
    empty,
    withModel(url: string, extra = ""): string {
      const dir = empty();
      writeFileSync(
        path.join(dir, "config.yaml"),
        `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${url}', max_retries: 0}\nsandbox: {use: local}\n${defaults}${extra}`,
      );
      return dir;
    },
  };
}

/** Answers summarization requests with "Summary N." and everything else with "Answer N.". */
export const summaryOrAnswer = (body: ChatCompletionRequest, index: number): FakeStep =>
  JSON.stringify(body.messages).includes("<new_messages>")
    ? { content: `Summary ${index}.` }
    : { content: `Answer ${index}.` };
