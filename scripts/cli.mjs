// `npm start -- <deerflow arguments>`: sets up a fresh clone, then runs the deerflow CLI.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ensureBuilt, ensureInstalled, root } from "./setup.mjs";

ensureInstalled();
ensureBuilt();
const cli = path.join(root, "packages", "cli", "dist", "bin", "main.js");
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(result.status ?? 1);
