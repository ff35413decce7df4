// Preloaded into a `deerflow serve` child by `npm run bench -- server` (NODE_OPTIONS=--import): counts
// the Postgres round trips the process makes (every pg Client.query, pool queries included, since a
// pool runs its queries on a client). On SIGUSR2 it writes the count and the statements since the last
// signal to the file named in BENCH_PG_COUNT_FILE, then starts a new tally.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const file = process.env.BENCH_PG_COUNT_FILE;
if (file) {
  // Resolved from the working directory, as the server resolves it (one copy of pg in the repository).
  const pg = createRequire(`${process.cwd()}/`)("pg");
  const original = pg.Client.prototype.query;
  let statements = [];
  pg.Client.prototype.query = function (config, ...rest) {
    const text = typeof config === "string" ? config : (config?.text ?? String(config?.name ?? "?"));
    statements.push(text.replace(/\s+/g, " ").trim().slice(0, 300));
    return original.call(this, config, ...rest);
  };
  process.on("SIGUSR2", () => {
    writeFileSync(file, JSON.stringify(statements));
    statements = [];
  });
}
