// Prints the gzipped size of the JavaScript the app loads first (the entry script and its static
// imports, as listed in dist/index.html) and of all lazily loaded chunks, after `vite build`.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

const dist = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "../dist");
const html = readFileSync(path.join(dist, "index.html"), "utf8");
const initial = new Set([...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]));
const gz = (file) => gzipSync(readFileSync(path.join(dist, "assets", file))).length;
let first = 0;
let lazy = 0;
for (const file of readdirSync(path.join(dist, "assets")).filter((f) => f.endsWith(".js"))) {
  if (initial.has(file)) first += gz(file);
  else lazy += gz(file);
}
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`web: initial JS ${kb(first)} gzipped (budget 250 KB); lazy chunks ${kb(lazy)} gzipped`);
