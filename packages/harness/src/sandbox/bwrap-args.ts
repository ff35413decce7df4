/**
 * The bubblewrap command line of one sandboxed command, as a pure function so the isolation it
 * promises can be read and tested in one place: a new user namespace with an unprivileged uid and no
 * capabilities, every other namespace unshared (no network: only a downed loopback), an empty
 * environment, system directories read-only, a minimal generated `/etc` (the host's is never
 * visible), a private `/tmp`, only this thread's `user-data` read-write at `/mnt/user-data`, the
 * skills directory read-only at `/mnt/skills`, custom mounts (`sandbox.mounts`) read-write or read-only
 * (`--ro-bind`) as configured, and the whole tree remounted read-only otherwise.
 */
import fs from "node:fs";
import path from "node:path";

/** Inputs of {@link buildBwrapArgs}. */
export interface BwrapArgsInput {
  /** Host `{home}/threads/{id}/user-data`, bound read-write at `/mnt/user-data`. */
  userDataDir: string;
  /** Host skills directory, bound read-only at `skillsMount` when it exists. */
  skillsDir?: string | null;
  /** Where the skills appear inside (`skills.container_path`). Default `/mnt/skills`. */
  skillsMount?: string;
  /** Directory holding the generated `passwd`, `group`, `hosts`, `nsswitch.conf`. */
  etcDir: string;
  /** Environment set inside after `--clearenv`. */
  env: Record<string, string>;
  /** The shell command. */
  command: string;
  /** Custom mounts: `--bind` or, when read-only, `--ro-bind` host path at container path. */
  mounts?: readonly { hostPath: string; containerPath: string; readOnly: boolean }[];
  /** Host root to mirror `/bin`, `/lib*` and `/sbin` from (symlink or directory). Default "/". */
  hostRoot?: string;
}

/** Files of the generated `/etc`, each bound read-only. */
export const SANDBOX_ETC_FILES: Readonly<Record<string, string>> = {
  passwd: [
    "root:x:0:0:root:/nonexistent:/usr/sbin/nologin",
    "sandbox:x:1000:1000:DeerFlow sandbox:/mnt/user-data/workspace:/bin/bash",
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
    "",
  ].join("\n"),
  group: ["root:x:0:", "sandbox:x:1000:", "nogroup:x:65534:", ""].join("\n"),
  hosts: "127.0.0.1 localhost sandbox\n::1 localhost\n",
  "nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
};

/** Host files under `/etc` that hold no secrets but that Debian binaries need (awk via alternatives, the loader cache, time zone). */
const HOST_ETC_PASSTHROUGH = ["/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime"];
const TOP_LEVEL_SYSTEM = ["bin", "sbin", "lib", "lib64", "lib32", "libx32"];

/** Argument vector for `bwrap` (without the program name). */
export function buildBwrapArgs(input: BwrapArgsInput): string[] {
  const hostRoot = input.hostRoot ?? "/";
  const args = [
    "--unshare-all",
    "--unshare-user",
    "--uid",
    "1000",
    "--gid",
    "1000",
    "--cap-drop",
    "ALL",
    "--hostname",
    "sandbox",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    "--ro-bind",
    path.join(hostRoot, "usr"),
    "/usr",
  ];
  for (const name of TOP_LEVEL_SYSTEM) {
    const host = path.join(hostRoot, name);
    const stat = lstatOrNull(host);
    if (stat?.isSymbolicLink()) args.push("--symlink", fs.readlinkSync(host), `/${name}`);
    else if (stat?.isDirectory()) args.push("--ro-bind", host, `/${name}`);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/etc");
  for (const name of Object.keys(SANDBOX_ETC_FILES))
    args.push("--ro-bind", path.join(input.etcDir, name), `/etc/${name}`);
  for (const file of HOST_ETC_PASSTHROUGH) args.push("--ro-bind-try", file, file);
  args.push("--bind", input.userDataDir, "/mnt/user-data");
  if (input.skillsDir && lstatOrNull(input.skillsDir)?.isDirectory())
    args.push("--ro-bind", input.skillsDir, input.skillsMount ?? "/mnt/skills");
  for (const mount of input.mounts ?? [])
    args.push(mount.readOnly ? "--ro-bind" : "--bind", mount.hostPath, mount.containerPath);
  args.push("--remount-ro", "/", "--chdir", "/mnt/user-data/workspace");
  for (const [name, value] of Object.entries(input.env)) args.push("--setenv", name, value);
  args.push("/bin/bash", "-c", input.command);
  return args;
}

/** Writes the generated `/etc` files into `etcDir` (only those whose content differs). */
export function writeSandboxEtc(etcDir: string): void {
  fs.mkdirSync(etcDir, { recursive: true });
  for (const [name, content] of Object.entries(SANDBOX_ETC_FILES)) {
    const file = path.join(etcDir, name);
    let current: string | undefined;
    try {
      current = fs.readFileSync(file, "utf8");
    } catch {
      current = undefined;
    }
    if (current === content) continue;
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, content, { mode: 0o644 });
    fs.renameSync(temp, file);
  }
}

function lstatOrNull(file: string): fs.Stats | null {
  try {
    return fs.lstatSync(file);
  } catch {
    return null;
  }
}
