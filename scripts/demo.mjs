// The main job (`npm run demo`): sets up a fresh clone, then runs one task with the built-in defaults,
// offline, on the demo model (or on a real model if config.yaml / OPENAI_API_KEY says so). Any
// arguments replace the default task and flags, e.g. `npm run demo -- "summarise notes.txt"`.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ensureBuilt, ensureInstalled, root } from "./setup.mjs";

ensureInstalled();
ensureBuilt();
const args = process.argv.slice(2);
const runArgs = args.length > 0 ? args : ["--plan", "Write a short note about what DeerFlow.ts is and present it"];
const cli = path.join(root, "packages", "cli", "dist", "bin", "main.js");
const result = spawnSync(process.execPath, [cli, "run", ...runArgs], { stdio: "inherit" });
process.exit(result.status ?? 1);
