// `npm run bench [-- <part>] [-- --quick]`: sets up a fresh clone (dependencies, builds), then runs the
// benchmarks (bench/run.ts) with the arguments given; `npm run bench -- server` also installs the peer
// server into bench/peer on first use.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ensureBuilt, ensureInstalled, root } from "./setup.mjs";

await ensureInstalled();
ensureBuilt();
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", path.join(root, "bench", "run.ts"), ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" },
);
process.exit(result.status ?? 1);
