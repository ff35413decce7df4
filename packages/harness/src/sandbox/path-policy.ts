/**
 * The one path policy. Every file tool and the `bash` command check ask it whether a path the model
 * wrote may be used, and get back the host path to operate on or an error text the model can act on.
 *
 * It exists so that no tool has its own idea of "inside": `..` segments are refused outright, only
 * `/mnt/user-data/{workspace,uploads,outputs}` (read-write) and `/mnt/skills` (read-only) map to host
 * directories, prefix checks are separator-aware (`/mnt/user-data-x` is outside), and the mapped path
 * is resolved through every symlink that exists (the nearest existing ancestor for new files) before
 * the containment check, so a link the agent planted in its workspace cannot lead out.
 *
 * Custom mounts (`sandbox.mounts`) add host directories at paths of their own, read-write or read-only;
 * a write to a read-only mount is refused here, which is the whole enforcement for the local provider
 * (bubblewrap also binds it read-only).
 */
import fs from "node:fs";
import path from "node:path";
import { ConfigError, SandboxError } from "../errors.js";
import {
  USER_DATA_DIRS,
  VIRTUAL_SKILLS,
  VIRTUAL_USER_DATA,
  VIRTUAL_WORKSPACE,
  isInsideDir,
  threadUserDataDir,
} from "./virtual-paths.js";

/** Host directories behind the virtual roots. */
export interface PathPolicyRoots {
  /** Host directory shown at `/mnt/user-data` (holds workspace, uploads, outputs). */
  userDataDir: string;
  /** Host directory shown read-only at `/mnt/skills`; absent or null when no skills are configured. */
  skillsDir?: string | null;
  /**
   * Where the model sees the skills (`skills.container_path`); default `/mnt/skills`. Checked by
   * {@link validateSkillsContainerPath}.
   */
  skillsVirtualPath?: string;
  /** Custom mounts (`sandbox.mounts`), each checked by {@link validateMounts}. */
  mounts?: readonly SandboxMount[];
}

/** A host directory shown inside the sandbox at `containerPath`. */
export interface SandboxMount {
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
}

/** What the caller is about to do with the path. */
export type PathAccess = "read" | "write";

/** A path the policy accepted. */
export interface AllowedPath {
  ok: true;
  /** Normalized virtual path, e.g. `/mnt/user-data/outputs/a.md`. */
  virtualPath: string;
  /** Host path after mapping, before symlink resolution. */
  hostPath: string;
  /** Host path with every existing symlink resolved; operate on this one. */
  realPath: string;
  /** Which virtual root the path is under. */
  area: "user-data" | "skills" | "mount";
}

/** A path the policy refused, with the sentence that says why (tools show it as `Error: <sentence>`). */
export interface DeniedPath {
  ok: false;
  error: string;
}

/** Result of {@link PathPolicy.resolve}. */
export type PathDecision = AllowedPath | DeniedPath;

/** Longest accepted path, in characters. */
export const MAX_PATH_CHARS = 4096;
/** Longest accepted path component, in UTF-8 bytes (the Linux NAME_MAX). */
export const MAX_SEGMENT_BYTES = 255;

function allowedRootsText(skills: string): string {
  return `Only paths under /mnt/user-data/ (workspace, uploads, outputs) and ${skills}/ (read-only) are allowed.`;
}

/** Places the skills may not be shown at: they would hide the thread's files or the system the shell needs. */
const RESERVED_CONTAINER_PREFIXES = [
  VIRTUAL_USER_DATA,
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/proc",
  "/dev",
  "/tmp",
];

/**
 * Checks `skills.container_path`: an absolute, normalized path without `..`, not `/`, and neither inside
 * nor above `/mnt/user-data` or a system directory. Returns it; throws a `SandboxError` saying what to use.
 */
export function validateSkillsContainerPath(value: string): string {
  const problem = containerPathProblem(value);
  if (problem) {
    throw new ConfigError(`skills.container_path ${JSON.stringify(value)} ${problem}. Use a path such as /mnt/skills.`);
  }
  return value;
}

/**
 * Checks `sandbox.mounts`: each container path as `skills.container_path` is checked, overlapping
 * neither the skills path nor another mount, and each host path an existing directory. Returns the
 * mounts with absolute host paths; throws a `ConfigError` naming the entry and what to change.
 *
 * @example
 * validateMounts([{ hostPath: "/srv/data", containerPath: "/mnt/data", readOnly: true }], "/mnt/skills");
 */
export function validateMounts(mounts: readonly SandboxMount[], skillsVirtualPath: string): SandboxMount[] {
  const checked: SandboxMount[] = [];
  mounts.forEach((mount, index) => {
    const where = `sandbox.mounts[${index}]`;
    const problem =
      containerPathProblem(mount.containerPath) ??
      (overlaps(mount.containerPath, skillsVirtualPath) ? `overlaps the skills path ${skillsVirtualPath}` : null) ??
      checked
        .map((other) => other.containerPath)
        .find((other) => overlaps(mount.containerPath, other))
        ?.replace(/^/, "overlaps the mount at ") ??
      null;
    if (problem)
      throw new ConfigError(
        `${where}.container_path ${JSON.stringify(mount.containerPath)} ${problem}. Use a path of its own such as /mnt/data.`,
      );
    const hostPath = path.resolve(mount.hostPath);
    if (!fs.statSync(hostPath, { throwIfNoEntry: false })?.isDirectory())
      throw new ConfigError(
        `${where}.host_path ${JSON.stringify(mount.hostPath)} is not an existing directory. Create it or fix the path.`,
      );
    checked.push({ ...mount, hostPath });
  });
  return checked;
}

function overlaps(a: string, b: string): boolean {
  return isInsideDir(a, b) || isInsideDir(b, a);
}

function containerPathProblem(value: string): string | null {
  return typeof value !== "string" || !value.startsWith("/")
    ? "must be an absolute path"
    : value.split("/").includes("..") ||
        path.posix.normalize(value) !== value ||
        (value.length > 1 && value.endsWith("/"))
      ? "must be a normalized path without '..' or a trailing '/'"
      : value === "/" ||
          RESERVED_CONTAINER_PREFIXES.some((prefix) => isInsideDir(value, prefix) || isInsideDir(prefix, value))
        ? "would hide or overlap /mnt/user-data or a system directory"
        : /[\u0000-\u001f\u007f\s'"$`\\]/.test(value)
          ? "must not contain spaces, quotes, '$', backslashes or control characters"
          : null;
}

/** Shortens and escapes a model-supplied path for an error message. */
export function shownPath(input: string): string {
  const escaped = input.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return escaped.length > 200 ? `${escaped.slice(0, 120)}…(${escaped.length} chars)` : escaped;
}

/** Checks and maps virtual paths for one thread. Cheap to build; holds no open resources. */
export class PathPolicy {
  readonly userDataDir: string;
  readonly skillsDir: string | null;
  /** Virtual root of the skills: the one source for prompt, policy, command check and mounts. */
  readonly skillsVirtualPath: string;
  /** Custom mounts, longest container path first. */
  readonly mounts: readonly SandboxMount[];

  constructor(roots: PathPolicyRoots) {
    this.userDataDir = path.resolve(roots.userDataDir);
    this.skillsDir = roots.skillsDir ? path.resolve(roots.skillsDir) : null;
    this.skillsVirtualPath = validateSkillsContainerPath(roots.skillsVirtualPath ?? VIRTUAL_SKILLS);
    this.mounts = (roots.mounts ?? [])
      .map((mount) => ({ ...mount, hostPath: path.resolve(mount.hostPath) }))
      .sort((a, b) => b.containerPath.length - a.containerPath.length);
  }

  /** True when `virtualPath` is under one of the sandbox's virtual roots (user data, skills, a mount). */
  isVirtual(virtualPath: string): boolean {
    return (
      isInsideDir(virtualPath, VIRTUAL_USER_DATA) ||
      isInsideDir(virtualPath, this.skillsVirtualPath) ||
      this.mounts.some((mount) => isInsideDir(virtualPath, mount.containerPath))
    );
  }

  /**
   * Decides whether `input` may be used for `access`. Relative paths are taken relative to
   * `/mnt/user-data/workspace`. Never throws.
   */
  resolve(input: unknown, access: PathAccess): PathDecision {
    const syntax = normalizeVirtualPath(input);
    if (!syntax.ok) return syntax;
    const virtualPath = syntax.virtualPath;
    const shown = shownPath(String(input));
    const mapped = this.mapVirtual(virtualPath, access, shown);
    if (!mapped.ok) return mapped;
    const real = resolveExisting(mapped.hostPath);
    if ("error" in real) {
      if (real.error === "loop") return deny(`${shown} goes through a symlink loop.`);
      if (real.error === "too-long") return deny(`Path is too long for the host file system: ${shown}`);
      return deny(`Access denied: ${shown} goes through a symlink whose target does not exist in the sandbox.`);
    }
    if (!this.allowsRealPath(real.path, access)) {
      return deny(
        `Access denied: ${shown} resolves through a symlink to a location outside the sandbox. ${allowedRootsText(this.skillsVirtualPath)}`,
      );
    }
    return { ok: true, virtualPath, hostPath: mapped.hostPath, realPath: real.path, area: mapped.area };
  }

  /** Maps a host path (as given or symlink-resolved) back to its virtual path, or undefined if outside. */
  toVirtual(hostPath: string): string | undefined {
    for (const [host, virtual] of this.mapping()) {
      if (isInsideDir(hostPath, host)) return virtual + hostPath.slice(host.length);
    }
    return undefined;
  }

  /** `[hostPrefix, virtualPrefix]` pairs, longest host prefix first (for masking and `toVirtual`). */
  mapping(): Array<[string, string]> {
    const pairs: Array<[string, string]> = [];
    const add = (host: string | null, virtual: string) => {
      if (!host) return;
      pairs.push([host, virtual]);
      const real = realOrSelf(host);
      if (real !== host) pairs.push([real, virtual]);
    };
    add(this.userDataDir, VIRTUAL_USER_DATA);
    add(this.skillsDir, this.skillsVirtualPath);
    for (const mount of this.mounts) add(mount.hostPath, mount.containerPath);
    return pairs.sort((a, b) => b[0].length - a[0].length);
  }

  private mapVirtual(
    virtualPath: string,
    access: PathAccess,
    shown: string,
  ): { ok: true; hostPath: string; area: AllowedPath["area"] } | DeniedPath {
    if (isInsideDir(virtualPath, VIRTUAL_USER_DATA)) {
      const rest = virtualPath.slice(VIRTUAL_USER_DATA.length).replace(/^\//, "");
      const first = rest.split("/")[0] ?? "";
      const inSubdir = (USER_DATA_DIRS as readonly string[]).includes(first);
      if (!inSubdir && !(rest === "" && access === "read")) {
        return deny(
          `Access denied: ${shown} is not inside /mnt/user-data/workspace, /mnt/user-data/uploads or /mnt/user-data/outputs.`,
        );
      }
      return { ok: true, hostPath: rest ? path.join(this.userDataDir, rest) : this.userDataDir, area: "user-data" };
    }
    if (isInsideDir(virtualPath, this.skillsVirtualPath)) {
      if (access === "write") {
        return deny(
          `Access denied: ${this.skillsVirtualPath} is read-only (${shown}). Write to /mnt/user-data/workspace or /mnt/user-data/outputs instead.`,
        );
      }
      if (!this.skillsDir) return deny(`${shown} is not available: no skills directory is configured.`);
      const rest = virtualPath.slice(this.skillsVirtualPath.length).replace(/^\//, "");
      return { ok: true, hostPath: rest ? path.join(this.skillsDir, rest) : this.skillsDir, area: "skills" };
    }
    const mount = this.mounts.find((entry) => isInsideDir(virtualPath, entry.containerPath));
    if (mount) {
      if (access === "write" && mount.readOnly) {
        return deny(
          `Access denied: ${mount.containerPath} is a read-only mount (${shown}). Write to /mnt/user-data/workspace or /mnt/user-data/outputs instead.`,
        );
      }
      const rest = virtualPath.slice(mount.containerPath.length).replace(/^\//, "");
      return { ok: true, hostPath: rest ? path.join(mount.hostPath, rest) : mount.hostPath, area: "mount" };
    }
    return deny(`Access denied: ${shown} is outside the sandbox. ${allowedRootsText(this.skillsVirtualPath)}`);
  }

  /**
   * Whether a fully resolved host path may be used: writes must land in workspace, uploads, outputs or a
   * writable mount; reads anywhere in user-data, the skills directory or a mount.
   */
  allowsRealPath(real: string, access: PathAccess): boolean {
    const userData = realOrSelf(this.userDataDir);
    const inMount = this.mounts.some(
      (mount) => (access === "read" || !mount.readOnly) && isInsideDir(real, realOrSelf(mount.hostPath)),
    );
    if (inMount) return true;
    if (access === "write") return USER_DATA_DIRS.some((dir) => isInsideDir(real, path.join(userData, dir)));
    if (isInsideDir(real, userData)) return true;
    return this.skillsDir !== null && isInsideDir(real, realOrSelf(this.skillsDir));
  }
}

/**
 * Syntax checks shared by every entry point: type, emptiness, NUL and control characters, length,
 * `..` segments. Returns the normalized absolute virtual path (relative input is under the workspace).
 */
export function normalizeVirtualPath(input: unknown): { ok: true; virtualPath: string } | DeniedPath {
  if (typeof input !== "string")
    return deny("No path given. Use an absolute path such as /mnt/user-data/workspace/notes.md.");
  if (input.trim() === "")
    return deny("No path given. Use an absolute path such as /mnt/user-data/workspace/notes.md.");
  if (input.includes("\u0000")) return deny("Access denied: the path contains a NUL byte.");
  if (/[\u0001-\u001f\u007f]/.test(input))
    return deny(`Access denied: the path contains control characters: ${shownPath(input)}`);
  if (input.length > MAX_PATH_CHARS)
    return deny(`Path is too long (${input.length} characters; at most ${MAX_PATH_CHARS}).`);
  const segments = input.split("/");
  if (segments.includes("..")) return deny(`Access denied: path traversal ('..') is not allowed: ${shownPath(input)}`);
  const long = segments.find((segment) => Buffer.byteLength(segment) > MAX_SEGMENT_BYTES);
  if (long !== undefined) {
    return deny(
      `Path component is too long (${Buffer.byteLength(long)} bytes; at most ${MAX_SEGMENT_BYTES}): ${shownPath(long)}`,
    );
  }
  const absolute = input.startsWith("/") ? input : `${VIRTUAL_WORKSPACE}/${input}`;
  let virtualPath = path.posix.normalize(absolute);
  if (virtualPath.length > 1 && virtualPath.endsWith("/")) virtualPath = virtualPath.slice(0, -1);
  return { ok: true, virtualPath };
}

/**
 * Resolves every symlink along `hostPath` that exists. For a path that does not exist yet, the
 * nearest existing ancestor is resolved and the missing tail appended (it holds no links yet).
 */
export function resolveExisting(hostPath: string): { path: string } | { error: "dangling" | "loop" | "too-long" } {
  let existing = hostPath;
  const missing: string[] = [];
  for (;;) {
    try {
      fs.lstatSync(existing);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENAMETOOLONG") return { error: "too-long" };
      if (code === "ELOOP") return { error: "loop" };
      if (code !== "ENOENT" && code !== "ENOTDIR") return { error: "dangling" };
      const parent = path.dirname(existing);
      if (parent === existing) break;
      missing.unshift(path.basename(existing));
      existing = parent;
    }
  }
  try {
    return { path: path.join(fs.realpathSync.native(existing), ...missing) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { error: code === "ELOOP" ? "loop" : code === "ENAMETOOLONG" ? "too-long" : "dangling" };
  }
}

function realOrSelf(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return dir;
  }
}

function deny(message: string): DeniedPath {
  return { ok: false, error: message };
}

/**
 * Host path of a thread's virtual path, checked by the path policy (for the CLI's artifact listing
 * and the server's artifact route). Throws a `SandboxError` with the policy's message when refused.
 *
 * @example
 * ```ts
 * resolveVirtualPath(home, "t1", "/mnt/user-data/outputs/report.md"); // ".../threads/t1/user-data/outputs/report.md"
 * ```
 */
export function resolveVirtualPath(
  home: string,
  threadId: string,
  virtualPath: string,
  options: { skillsDir?: string | null; access?: PathAccess } = {},
): string {
  const policy = new PathPolicy({
    userDataDir: threadUserDataDir(home, threadId),
    skillsDir: options.skillsDir ?? null,
  });
  const decision = policy.resolve(virtualPath, options.access ?? "read");
  if (!decision.ok) throw new SandboxError(decision.error);
  return decision.realPath;
}
