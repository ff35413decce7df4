/**
 * Rewrites host paths in tool output back to the virtual paths the model knows. Without it a shell
 * error or a `pwd` would show `/home/me/.deer-flow/threads/t1/user-data/...`, and the model would then
 * try to use that host path, which the path policy refuses.
 */

/**
 * Replaces every occurrence of a host prefix with its virtual prefix. Longer prefixes are tried first;
 * a prefix only matches at a path boundary (`/data/t1` does not match inside `/data/t10`).
 *
 * @example
 * ```ts
 * maskHostPaths("cat: /srv/t1/user-data/x: No such file", [["/srv/t1/user-data", "/mnt/user-data"]]);
 * // "cat: /mnt/user-data/x: No such file"
 * ```
 */
export function maskHostPaths(text: string, mapping: ReadonlyArray<readonly [host: string, virtual: string]>): string {
  const pairs = [...mapping].filter(([host]) => host.length > 1).sort((a, b) => b[0].length - a[0].length);
  if (pairs.length === 0 || text === "") return text;
  const byHost = new Map(pairs.map(([host, virtual]) => [host, virtual]));
  const pattern = new RegExp(`(${pairs.map(([host]) => escapeRegExp(host)).join("|")})(?![A-Za-z0-9._-])`, "g");
  return text.replace(pattern, (match) => byHost.get(match) ?? match);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
