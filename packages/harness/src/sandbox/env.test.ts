import { test } from "node:test";
import assert from "node:assert/strict";
import { buildHostCommandEnv, buildSandboxEnv, hasUrlCredentials, isSecretEnvName } from "./env.js";

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

test("names and values the old deny-list missed are secrets too", () => {
  for (const name of ["GITHUB_PAT", "MYSQL_PWD", "PGPASSWORD", "SMTP_PW"])
    assert.equal(isSecretEnvName(name), true, name);
  for (const name of ["PWD", "OLDPWD", "PATH", "PATTERN_DIR"]) assert.equal(isSecretEnvName(name), false, name);
  assert.equal(hasUrlCredentials("http://user:pass@proxy:8080"), true);
  assert.equal(hasUrlCredentials("https://token@github.com/x.git"), true);
  assert.equal(hasUrlCredentials("http://proxy:8080"), false);
  assert.deepEqual(buildSandboxEnv({ HTTPS_PROXY: "http://u:p@h:1", HTTP_PROXY: "http://h:1" }), {
    HTTP_PROXY: "http://h:1",
  });
});

test("host commands get only allow-listed variables", () => {
  assert.deepEqual(
    buildHostCommandEnv(
      {
        PATH: "/usr/bin",
        LC_ALL: "C",
        GITHUB_PAT: "x",
        RANDOM_THING: "y",
        HTTPS_PROXY: "http://u:p@h:1",
        no_proxy: "localhost",
      },
      { HOME: "/ws" },
    ),
    { PATH: "/usr/bin", LC_ALL: "C", no_proxy: "localhost", HOME: "/ws" },
  );
});
