/**
 * `GET /threads/{id}/artifacts/{path}`: the bytes of a file the agent wrote, as DeerFlow's gateway
 * serves them (`path` is the virtual path without its leading slash, e.g.
 * `mnt/user-data/outputs/report.md`; `?download=true` makes it an attachment).
 *
 * Read-only and minimal, so the web app can preview and download artifacts. Every path goes through
 * the harness's path policy (`resolveVirtualPath`): `..`, paths outside `/mnt/user-data` and symlinks
 * leading out of the thread are refused, so no request can read another thread's or the host's files.
 * Pages and SVG are always attachments with `Content-Security-Policy: sandbox`, so an artifact can never
 * run script on the server's origin.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { isHarnessError, resolveVirtualPath } from "@deerflow/harness";
import type { RegisterRoutes } from "../context.js";
import { contentTypeOf, isActiveContent } from "../http/content-types.js";
import { HttpError, notFound } from "../http/errors.js";
import { flag, pathId } from "../http/validate.js";

/** Largest artifact served, in bytes. */
export const MAX_ARTIFACT_BYTES = 50 * 1024 * 1024;

/** Registers the artifact route. */
export const registerArtifactRoutes: RegisterRoutes = (api, context) => {
  api.get("/threads/:thread_id/artifacts/*", async (c) => {
    const threadId = pathId(c, "thread_id");
    const marker = `/threads/${threadId}/artifacts/`;
    const raw = c.req.path.slice(c.req.path.indexOf(marker) + marker.length);
    let virtualPath: string;
    try {
      virtualPath = `/${raw.split("/").map((segment) => decodeURIComponent(segment)).join("/")}`;
    } catch {
      throw new HttpError(422, `Artifact path "${raw.slice(0, 200)}" is not valid URL encoding.`);
    }
    let hostPath: string;
    try {
      hostPath = resolveVirtualPath(context.harness.home, threadId, virtualPath, { access: "read" });
    } catch (error) {
      if (isHarnessError(error)) throw new HttpError(403, `${error.message}`);
      throw error;
    }
    const info = await stat(hostPath).catch(() => null);
    if (!info || !info.isFile()) throw notFound(`Artifact ${virtualPath} of thread ${threadId}`);
    if (info.size > MAX_ARTIFACT_BYTES) throw new HttpError(413, `Artifact ${virtualPath} is larger than ${MAX_ARTIFACT_BYTES} bytes.`);
    const type = contentTypeOf(hostPath);
    const name = path.basename(hostPath);
    const attachment = flag(c.req.query("download")) || isActiveContent(type);
    return c.body(await readFile(hostPath), 200, {
      "content-type": type,
      "content-disposition": `${attachment ? "attachment" : "inline"}; filename*=UTF-8''${encodeURIComponent(name)}`,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox",
    });
  });
};
