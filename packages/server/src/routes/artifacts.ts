/**
 * Artifacts (contract §B.4, inventory §11.2): `GET /threads/{id}/artifacts/{virtual path}` serves a
 * file of the thread (`mnt/user-data/outputs/report.md`; uploads and workspace too), `PUT` edits a text
 * output in place when the caller still has the version it opened (`expected_sha256`).
 *
 * Every path goes through the harness's path policy for that thread and is opened with its link-safe
 * file access: `..`, absolute host paths, encoded traversal, NUL bytes and symlinks that lead out are
 * refused, and nothing outside the thread's `user-data` is ever named.
 *
 * Serving rules follow what DeerFlow's UI reads (it fetches previews with `Range: bytes=0-1048575`,
 * takes the sha256 from a quoted `ETag`, and treats `416` with `bytes *\/0` as an empty file). Active
 * content (HTML, XHTML, SVG, XML, JavaScript) is always an attachment, since served inline from the
 * API's origin it would run with the user's session; the UI's fetch-based preview reads it anyway.
 * Everything is sent with `nosniff`.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import {
  type AllowedPath,
  FileAccessError,
  openReadChecked,
  PathPolicy,
  readFileChecked,
  threadUserDataDir,
  VIRTUAL_OUTPUTS,
  withDirChecked,
  withPathLock,
} from "@deerflow/harness";
import type { Context } from "hono";
import { getMimeType, mimes } from "hono/utils/mime";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { flag, parseBody } from "../http/validate.js";
import { threadDirId } from "./uploads.js";

/** Types a browser would execute or render as a document: never inline. */
const ACTIVE_TYPES = new Set([
  "text/html",
  "application/xhtml+xml",
  "image/svg+xml",
  "text/xml",
  "application/xml",
  "text/javascript",
  "application/javascript",
  "application/ecmascript",
  "text/ecmascript",
]);
/** hono's table plus the text formats agents write most. */
const MIME_TYPES: Record<string, string> = {
  ...mimes,
  md: "text/markdown",
  markdown: "text/markdown",
  yaml: "text/yaml",
  yml: "text/yaml",
  log: "text/plain",
  py: "text/x-python",
  ts: "text/plain",
  tsx: "text/plain",
  jsx: "text/plain",
  sh: "text/x-shellscript",
  tex: "text/x-tex",
  toml: "text/plain",
};
/** Largest file `PUT` edits (DeerFlow's limit). */
export const MAX_EDITABLE_BYTES = 2 * 1024 * 1024;
/** Files up to this size get an ETag carrying their sha256 (the UI's edit precondition). */
const HASHED_MAX_BYTES = 16 * 1024 * 1024;

const PutSchema = z.strictObject({
  content: z.string(),
  expected_sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits"),
});

/** The virtual path named by the request path after `/artifacts/`, decoded once. */
function requestedPath(c: Context): string {
  const raw = c.req.path;
  const marker = "/artifacts/";
  const at = raw.indexOf(marker);
  const rest = at >= 0 ? raw.slice(at + marker.length) : "";
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    throw new HttpError(400, "The artifact path is not valid percent-encoding.");
  }
  if (decoded === "")
    throw new HttpError(400, "No artifact path given. Use /threads/{id}/artifacts/mnt/user-data/outputs/{file}.");
  return decoded.startsWith("/") ? decoded : `/${decoded}`;
}

/** Resolves a virtual path of the thread through the path policy; refusals are 403 (outside) or 400. */
function resolve(
  context: ServerContext,
  threadId: string,
  virtualPath: string,
  access: "read" | "write",
): { policy: PathPolicy; target: AllowedPath } {
  const policy = new PathPolicy({ userDataDir: threadUserDataDir(context.harness.home, threadId) });
  const decision = policy.resolve(virtualPath, access);
  if (!decision.ok) {
    const message = decision.error;
    throw new HttpError(/denied|outside|traversal|symlink/i.test(message) ? 403 : 400, message);
  }
  return { policy, target: decision };
}

function disposition(kind: "inline" | "attachment", filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** `[start, end]` of a single `bytes=` range, null to send everything, or "unsatisfiable". */
function parseRange(header: string | undefined, size: number): [number, number] | null | "unsatisfiable" {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return header.includes(",") ? null : "unsatisfiable";
  const [, first, last] = match;
  if (first === "" && last === "") return "unsatisfiable";
  let start: number;
  let end: number;
  if (first === "") {
    const suffix = Number(last);
    if (suffix <= 0) return "unsatisfiable";
    start = Math.max(size - suffix, 0);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  }
  if (size === 0 || start >= size || end < start) return "unsatisfiable";
  return [start, end];
}

async function sha256Of(handle: fs.promises.FileHandle, size: number): Promise<string> {
  const hash = createHash("sha256");
  const buffer = Buffer.alloc(Math.min(size, 1024 * 1024) || 1);
  let position = 0;
  while (position < size) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest("hex");
}

async function looksLikeText(handle: fs.promises.FileHandle, size: number): Promise<boolean> {
  const sample = Buffer.alloc(Math.min(size, 8192));
  const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
  return !sample.subarray(0, bytesRead).includes(0);
}

async function open(policy: PathPolicy, target: AllowedPath): Promise<fs.promises.FileHandle> {
  try {
    return await openReadChecked(policy, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw notFound(`Artifact ${target.virtualPath}`);
    if (error instanceof FileAccessError)
      throw new HttpError(/not a regular file|is a directory/.test(error.message) ? 400 : 403, error.message);
    throw error;
  }
}

/** Registers the artifact routes. */
export const registerArtifactRoutes: RegisterRoutes = (api, context) => {
  api.get("/threads/:thread_id/artifacts/*", async (c) => {
    const threadId = threadDirId(c);
    const { policy, target } = resolve(context, threadId, requestedPath(c), "read");
    const handle = await open(policy, target);
    let streaming = false;
    try {
      const { size } = await handle.stat();
      const filename = path.posix.basename(target.virtualPath);
      const guessed = getMimeType(filename, MIME_TYPES)?.split(";")[0];
      const type = guessed ?? ((await looksLikeText(handle, size)) ? "text/plain" : "application/octet-stream");
      const active = ACTIVE_TYPES.has(type);
      const headers: Record<string, string> = {
        "content-type": type.startsWith("text/") || type === "application/json" ? `${type}; charset=utf-8` : type,
        "content-disposition": disposition(active || flag(c.req.query("download")) ? "attachment" : "inline", filename),
        "x-content-type-options": "nosniff",
        "accept-ranges": "bytes",
        "cache-control": "private, no-cache",
      };
      // Opened anyway (a browser told to display it, a proxy that drops the disposition): no script runs.
      if (active) headers["content-security-policy"] = "sandbox";
      if (size <= HASHED_MAX_BYTES) headers.etag = `"${await sha256Of(handle, size)}"`;
      const range = parseRange(c.req.header("range"), size);
      if (range === "unsatisfiable") {
        return c.json({ detail: `The requested range is not satisfiable (the file is ${size} bytes).` }, 416, {
          "content-range": `bytes */${size}`,
          "accept-ranges": "bytes",
        });
      }
      const [start, end] = range ?? [0, size - 1];
      headers["content-length"] = String(Math.max(end - start + 1, 0));
      if (range) headers["content-range"] = `bytes ${start}-${end}/${size}`;
      if (size === 0) return c.body(null, 200, headers);
      const stream = handle.createReadStream({ start, end, autoClose: true });
      streaming = true;
      return c.body(Readable.toWeb(stream) as unknown as ReadableStream, range ? 206 : 200, headers);
    } finally {
      if (!streaming) await handle.close();
    }
  });

  api.put("/threads/:thread_id/artifacts/*", async (c) => {
    const threadId = threadDirId(c);
    const virtualPath = requestedPath(c);
    const body = await parseBody(c, PutSchema);
    const { policy, target } = resolve(context, threadId, virtualPath, "write");
    if (!target.virtualPath.startsWith(`${VIRTUAL_OUTPUTS}/`))
      throw new HttpError(400, `Only files in ${VIRTUAL_OUTPUTS} can be edited.`);
    if (/\.skill(\/|$)/.test(target.virtualPath)) throw new HttpError(415, "Skill archives cannot be edited here.");
    const content = Buffer.from(body.content, "utf8");
    if (content.length > MAX_EDITABLE_BYTES)
      throw new HttpError(
        413,
        `The new content is ${content.length} bytes; artifacts up to ${MAX_EDITABLE_BYTES} bytes can be edited.`,
      );
    if (content.includes(0)) throw new HttpError(415, "The new content contains NUL bytes; only text can be saved.");
    if ((await context.runs.active(threadId)).length > 0)
      throw new HttpError(409, `Thread ${threadId} has a run in progress; edit the artifact after it ends.`);

    return withPathLock(target.realPath, async () => {
      let current: Buffer;
      try {
        const read = await readFileChecked(policy, target, MAX_EDITABLE_BYTES + 1);
        if (read.size > MAX_EDITABLE_BYTES)
          throw new HttpError(
            413,
            `${target.virtualPath} is ${read.size} bytes; artifacts up to ${MAX_EDITABLE_BYTES} bytes can be edited.`,
          );
        current = read.data;
      } catch (error) {
        if (error instanceof HttpError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") throw notFound(`Artifact ${target.virtualPath}`);
        if (error instanceof FileAccessError) throw new HttpError(415, error.message);
        throw error;
      }
      if (current.includes(0))
        throw new HttpError(415, `${target.virtualPath} is binary; only UTF-8 text artifacts can be edited.`);
      const currentSha = createHash("sha256").update(current).digest("hex");
      if (currentSha !== body.expected_sha256) {
        throw new HttpError(
          412,
          `${target.virtualPath} changed since it was opened (its sha256 is now ${currentSha}). Reload it and apply the edit again.`,
        );
      }
      const dirDecision = policy.resolve(path.posix.dirname(target.virtualPath), "write");
      if (!dirDecision.ok) throw new HttpError(403, dirDecision.error);
      const name = path.basename(target.realPath);
      try {
        await withDirChecked(policy, dirDecision, async (entry) => {
          const temp = entry(`.artifact-edit-${randomBytes(6).toString("hex")}`);
          try {
            const handle = await fs.promises.open(
              temp,
              fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
              0o644,
            );
            try {
              await handle.writeFile(content);
              await handle.sync();
            } finally {
              await handle.close();
            }
            await fs.promises.rename(temp, entry(name));
          } finally {
            await fs.promises.rm(temp, { force: true });
          }
        });
      } catch (error) {
        if (error instanceof FileAccessError) throw new HttpError(403, error.message);
        throw error;
      }
      return c.json({
        path: target.virtualPath,
        sha256: createHash("sha256").update(content).digest("hex"),
        size: content.length,
      });
    });
  });
};
