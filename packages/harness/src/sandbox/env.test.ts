import { test } from "node:test";
import assert from "node:assert/strict";
import { buildSandboxEnv, isSecretEnvName } from "./env.js";

test("secret-looking variables are scrubbed, overrides win, invalid names are dropped", () => {
  const env = buildSandboxEnv(
    {
      PATH: "/usr/bin",
      OPENAI_API_KEY: "sk-1",
      GITHUB_TOKEN: "ghp",
      DB_PASSWORD: "p",
      DATABASE_URL: "postgres://u:p@h/db",
      AWS_SECRET_ACCESS_KEY: "a",
      SENTRY_DSN: "d",
      LANG: "C.UTF-8",
      "BAD-NAME": "x",
      EMPTY: undefined,
    },
    { HOME: "/work" },
  );
  assert.deepEqual(env, { PATH: "/usr/bin", LANG: "C.UTF-8", HOME: "/work" });
  assert.equal(isSecretEnvName("anthropic_api_key"), true);
  assert.equal(isSecretEnvName("TERM"), false);
});
