/**
 * The config.yaml that end-to-end tests give `deerflow serve`, `deerflow run` or `createHarness` when
 * the model is the fake OpenAI server: written once here so a new config key or default reaches every
 * such test, and so a test's own lines stand out as what it is about.
 */

/**
 * One `openai` model named "fake" at `url` (the fake server's), no retries, the local sandbox, and memory,
 * titles and follow-up suggestions off (each would be one more model call the script must answer).
 * `extra` lines are appended.
 *
 * @example
 * ```ts
 * const home = tempHome(t, { files: { "config.yaml": fakeModelConfig(fake.url, "summarization: {enabled: false}") } });
 * ```
 */
export function fakeModelConfig(url: string, ...extra: string[]): string {
  return [
    "models:",
    `  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${url}', max_retries: 0}`,
    "sandbox: {use: local}",
    "memory: {enabled: false}",
    "title: {enabled: false}",
    "suggestions: {enabled: false}",
    ...extra,
    "",
  ].join("\n");
}
