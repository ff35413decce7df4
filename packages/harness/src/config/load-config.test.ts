import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../errors.js";
import { loadConfig, parseConfigText } from "./load-config.js";
import { createTempHome } from "../testing/temp-home.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const parse = (text: string, env: Record<string, string> = {}) =>
  parseConfigText(text, { source: "/work/config.yaml", env });

function assertConfigError(fn: () => unknown, ...patterns: RegExp[]) {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    for (const pattern of patterns) assert.match(error.message, pattern);
    return true;
  });
}

test("the built-in defaults apply when there is no file", () => {
  const temp = createTempHome({ prefix: "df-config-" });
  const dir = temp.path;
  try {
    const config = loadConfig({ cwd: dir, env: {} });
    assert.equal(config.source, null);
    assert.deepEqual(config.models, []);
    assert.equal(config.sandbox.use, "auto");
    assert.equal(config.sandbox.allow_host_bash, false);
    assert.equal(config.memory.debounce_seconds, 30);
    assert.deepEqual(config.summarization.keep, { type: "messages", value: 20 });
    assert.equal(Object.isFrozen(config.sandbox), true);
  } finally {
    temp.cleanup();
  }
});

test("config.example.yaml is valid and equals the built-in defaults", () => {
  const example = loadConfig({ path: path.join(root, "config.example.yaml"), env: {} });
  const defaults = parse("");
  const { source: _a, config_version: _v, ...fromExample } = example;
  const { source: _b, ...fromDefaults } = defaults;
  assert.deepEqual(fromExample, fromDefaults);
});

test("finds the file through --config, DEER_FLOW_CONFIG_PATH, then ./config.yaml", () => {
  const temp = createTempHome({ prefix: "df-config-" });
  const dir = temp.path;
  try {
    writeFileSync(path.join(dir, "config.yaml"), "log_level: debug\n");
    writeFileSync(path.join(dir, "other.yaml"), "log_level: error\n");
    assert.equal(loadConfig({ cwd: dir, env: {} }).log_level, "debug");
    assert.equal(loadConfig({ cwd: dir, env: { DEER_FLOW_CONFIG_PATH: "other.yaml" } }).log_level, "error");
    assert.equal(loadConfig({ cwd: dir, path: "other.yaml", env: {} }).source, path.join(dir, "other.yaml"));
    assertConfigError(() => loadConfig({ cwd: dir, path: "missing.yaml", env: {} }), /missing\.yaml does not exist/);
  } finally {
    temp.cleanup();
  }
});

test("substitutes $VAR and ${VAR} from the environment", () => {
  const config = parse(
    "models:\n  - name: m\n    use: openai\n    model: gpt\n    api_key: $KEY\n    base_url: ${URL}\n",
    { KEY: "sk-1", URL: "http://127.0.0.1:9/v1" },
  );
  assert.equal(config.models[0]!.api_key, "sk-1");
  assert.equal(config.models[0]!.base_url, "http://127.0.0.1:9/v1");
});

test("an unset $VAR names the file, the key path and the variable", () => {
  assertConfigError(
    () => parse("models:\n  - name: m\n    use: openai\n    api_key: $NOT_SET\n"),
    /\/work\/config\.yaml/,
    /models\[0\]\.api_key/,
    /NOT_SET is not set/,
  );
});

test("an unknown key names the key path", () => {
  assertConfigError(
    () => parse("sandbox:\n  alow_host_bash: true\n"),
    /\/work\/config\.yaml/,
    /sandbox\.alow_host_bash: unknown key/,
  );
  assertConfigError(() => parse("sandboxx: {}\n"), /sandboxx: unknown key/);
});

test("a wrong type names the key path, the value found and what is expected", () => {
  assertConfigError(
    () => parse("sandbox:\n  bash_command_timeout: fast\n"),
    /sandbox\.bash_command_timeout: found "fast", expected number/,
  );
});

test("an unknown `use` lists the accepted providers", () => {
  assertConfigError(
    () => parse("models:\n  - name: m\n    use: langchain_foo:Bar\n"),
    /models\[0\]\.use: found "langchain_foo:Bar", expected one of openai, anthropic, ollama, demo/,
  );
});

test("DeerFlow's class-path spellings of `use` are accepted", () => {
  const config = parse(
    "models:\n  - {name: a, use: 'langchain_openai:ChatOpenAI', model: x}\n  - {name: b, use: 'langchain_anthropic:ChatAnthropic', model: y}\n",
  );
  assert.deepEqual(
    config.models.map((model) => model.use),
    ["openai", "anthropic"],
  );
});

test("a YAML syntax error gives the line", () => {
  assertConfigError(() => parse("models: [\n  - name: a\n"), /\/work\/config\.yaml: YAML syntax error at line \d+/);
});

test("two models with one name are refused", () => {
  assertConfigError(() => parse("models:\n  - {name: a, use: demo}\n  - {name: a, use: demo}\n"), /"a" is used twice/);
});

test("a single trigger object is read as a list", () => {
  const config = parse("summarization:\n  trigger: {type: tokens, value: 4000}\n");
  assert.deepEqual(config.summarization.trigger, [{ type: "tokens", value: 4000 }]);
});

test("title limits are range-checked and a bad title template is a config error", () => {
  const { max_words, max_chars } = parse("title: {enabled: true}").title;
  assert.deepEqual({ max_words, max_chars }, { max_words: 6, max_chars: 60 }, "DeerFlow's defaults");
  assertConfigError(() => parse("title: {max_chars: 0}"), /title\.max_chars/);
  assertConfigError(() => parse("title: {max_chars: 100000}"), /title\.max_chars/);
  assertConfigError(() => parse("title: {max_words: 500}"), /title\.max_words/);
  assertConfigError(
    () => parse("title: {prompt_template: 'Title for {user_message}'}"),
    /title\.prompt_template/,
    /\{user_message\}/,
    /\{user_msg\}/,
  );
  assertConfigError(
    () => parse("title: {prompt_template: 'A title please'}"),
    /title\.prompt_template/,
    /\{user_msg\}/,
  );
  assert.equal(
    parse("title: {prompt_template: 'Title ({max_words} words) for: {user_msg}'}").title.prompt_template,
    "Title ({max_words} words) for: {user_msg}",
  );
});

test("${VAR:-default}, $$ for a literal $, and typed values from a whole-value $VAR", () => {
  const config = parse(
    [
      "models:",
      "  - {name: m, use: openai, model: '${MODEL:-gpt-4o}', api_key: 'pa$$word', base_url: '${BASE:-http://localhost:1/v1}', max_tokens: $MAX, temperature: '${TEMP}', supports_vision: $VISION}",
      "sandbox: {allow_host_bash: '${HOST_BASH:-false}', bash_command_timeout: '${TIMEOUT:-30}'}",
      "skills: {path: 'cost-$$5-${UNSET:-}x'}",
    ].join("\n"),
    { MAX: "2048", TEMP: "0.5", VISION: "true", TIMEOUT: "" },
  );
  const model = config.models[0]!;
  assert.equal(model.model, "gpt-4o");
  assert.equal(model.api_key, "pa$word");
  assert.equal(model.base_url, "http://localhost:1/v1");
  assert.equal(model.max_tokens, 2048);
  assert.equal(model.temperature, 0.5);
  assert.equal(model.supports_vision, true);
  assert.equal(config.sandbox.allow_host_bash, false);
  assert.equal(config.sandbox.bash_command_timeout, 30);
  assert.equal(config.skills.path, "cost-$5-x");
  // A string key keeps a numeric-looking value as a string.
  assert.equal(parse("models:\n  - {name: m, use: openai, model: $M}", { M: "42" }).models[0]!.model, "42");
  assertConfigError(
    () => parse("models:\n  - {name: m, use: openai, max_tokens: $MAX}", { MAX: "lots" }),
    /models\[0\]\.max_tokens/,
    /"lots"/,
  );
});

test("YAML merge keys (<<) work, and an alias bomb is refused with the file named", () => {
  const config = parse(
    [
      "models:",
      "  - &base {name: a, use: openai, api_key: sk, max_retries: 1, model: a-1}",
      "  - <<: *base",
      "    name: b",
      "    max_retries: 3",
    ].join("\n"),
  );
  assert.deepEqual(
    config.models.map((model) => [model.name, model.use, model.api_key, model.max_retries]),
    [
      ["a", "openai", "sk", 1],
      ["b", "openai", "sk", 3],
    ],
  );
  const bomb = [
    "a: &a [x, x, x, x, x, x, x, x, x, x]",
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
    "f: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]",
  ].join("\n");
  assertConfigError(() => parse(bomb), /\/work\/config\.yaml/, /alias/i);
});

test("channels: Telegram and Slack sections load, with their platform addresses defaulted", () => {
  const config = parse(
    [
      "channels:",
      "  telegram: {bot_token: $TG_TOKEN, allowed_users: [42, '@alice', '*']}",
      "  slack: {bot_token: xoxb-1-2-abc, signing_secret: 0123456789abcdef0123, allowed_channels: [C0123ABCD, D0456]}",
    ].join("\n"),
    { TG_TOKEN: "123456:AAH-token_x" },
  );
  assert.equal(config.channels.telegram?.bot_token, "123456:AAH-token_x");
  assert.deepEqual(config.channels.telegram?.allowed_users, [42, "@alice", "*"]);
  assert.equal(config.channels.telegram?.api_root, "https://api.telegram.org");
  assert.equal(config.channels.slack?.api_url, "https://slack.com/api/");
  assert.equal(parse("").channels.telegram, undefined);
});

test("channels: a bad value fails at load naming the key path, the value and what was expected", () => {
  assertConfigError(
    () => parse("channels:\n  telegram: {bot_token: not-a-token, allowed_users: [1]}"),
    /channels\.telegram\.bot_token: found "not-a-token", expected a bot token from @BotFather/,
  );
  assertConfigError(
    () => parse("channels:\n  telegram: {bot_token: '1:abc', allowed_users: []}"),
    /channels\.telegram\.allowed_users: .*expected at least one user id or @username/,
  );
  assertConfigError(
    () => parse("channels:\n  telegram: {bot_token: '1:abc', allowed_users: ['a b']}"),
    /channels\.telegram\.allowed_users\[0\]: found "a b", .*numeric Telegram user id/,
  );
  assertConfigError(
    () =>
      parse("channels:\n  slack: {bot_token: xoxp-user, signing_secret: 0123456789abcdef0123, allowed_channels: [C1]}"),
    /channels\.slack\.bot_token: found "xoxp-user", expected a bot token starting with xoxb-/,
  );
  assertConfigError(
    () => parse("channels:\n  slack: {bot_token: xoxb-1, signing_secret: short, allowed_channels: [general]}"),
    /channels\.slack\.signing_secret: found "short", expected the app's signing secret/,
    /channels\.slack\.allowed_channels\[0\]: found "general", expected a Slack channel id/,
  );
  assertConfigError(() => parse("channels:\n  discord: {}"), /channels\.discord: unknown key/);
});
