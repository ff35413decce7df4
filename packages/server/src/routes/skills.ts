/**
 * Skills (contract §B.4 tier 1, inventory §8.5): list the installed skills with their enabled state,
 * and switch one on or off. State lives where `deerflow skills enable|disable` keeps it
 * (`extensions_config.json`, through the harness's catalog code); after a change the harness reloads
 * its skills, so the next run's prompt lists the new set and new sandboxes show only enabled skills.
 *
 * `POST /skills/install` takes one `.skill` archive (multipart) and installs it with the harness's
 * `installSkillArchive`, the code behind `deerflow skills install`: every check runs before anything is
 * written, and a refused archive is a 422 with the reason. An installed name without `?force=true` is
 * a 409. The body may be as large as the installer's archive limit (not the 1 MiB JSON limit).
 *
 * Which skills run shapes every agent's prompt and sandbox, so with `server.admin_api_keys` set only
 * those keys may install, enable or disable one (as for the MCP config); any key may list them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  customSkillsDir,
  discoverSkills,
  findExtensionsFile,
  installSkillArchive,
  isHarnessError,
  readSkillStates,
  SKILL_ARCHIVE_LIMITS,
  type SkillRecord,
  setSkillEnabled,
  skillRoots,
} from "@deerflow/harness";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { multipartFiles } from "../http/multipart.js";
import { callerOf } from "../auth/caller.js";
import { parseBody, parseQuery } from "../http/validate.js";

const ToggleSchema = z.strictObject({ enabled: z.boolean() });
const InstallQuery = z.object({ force: z.enum(["true", "false", "1", "0"]).optional() });

/** Room for multipart boundaries and headers on top of the archive. */
const MULTIPART_OVERHEAD = 64 * 1024;

/** The one archive of the multipart body (any field name), or a 422 saying how to send it. */
async function receiveArchive(c: Context): Promise<File> {
  const files = await multipartFiles(
    c,
    (reason) => `The body is not valid multipart/form-data (${reason}). Send the .skill archive as a "file" field.`,
  );
  if (files.length !== 1)
    throw new HttpError(422, `Send exactly one .skill archive as multipart/form-data (got ${files.length} files).`);
  return files[0]!;
}

function installed(context: ServerContext): { skills: SkillRecord[]; extensionsFile: string } {
  const extensionsFile = findExtensionsFile({ env: context.harness.setup.env }).path;
  let states: Record<string, boolean> = {};
  try {
    states = readSkillStates(extensionsFile);
  } catch (error) {
    context.options.log(`skills: ${(error as Error).message}`);
  }
  return {
    skills: discoverSkills(skillRoots(path.resolve(context.config.skills.path)), states, () => {}),
    extensionsFile,
  };
}

function describe(context: ServerContext, skill: SkillRecord): Record<string, unknown> {
  const frontmatter = skill.frontmatter as { license?: unknown; display_name?: unknown };
  return {
    name: skill.name,
    display_name: typeof frontmatter.display_name === "string" ? frontmatter.display_name : skill.name,
    description: skill.description,
    enabled: skill.enabled,
    license: typeof frontmatter.license === "string" ? frontmatter.license : null,
    category: skill.category,
    path: `${context.config.skills.container_path}/${skill.category}/${skill.name}/SKILL.md`,
  };
}

/** Registers the skills routes. */
export const registerSkillRoutes: RegisterRoutes = (api, context) => {
  /** With `server.admin_api_keys` set, a change to the installed skills needs one of those keys (403). */
  const requireAdmin = (c: Context, what: string) => {
    if (!callerOf(c).admin)
      throw new HttpError(
        403,
        `Only an admin may ${what}: a user with the admin role, or a key in server.admin_api_keys.`,
      );
  };
  const find = (name: string) => {
    const found = installed(context).skills.find((skill) => skill.name === name);
    if (!found) throw notFound(`Skill "${name.slice(0, 100)}"`);
    return found;
  };

  api.post(
    "/skills/install",
    bodyLimit({
      maxSize: SKILL_ARCHIVE_LIMITS.maxArchiveBytes + MULTIPART_OVERHEAD,
      onError: (c) =>
        c.json(
          {
            detail: `The archive is larger than ${SKILL_ARCHIVE_LIMITS.maxArchiveBytes} bytes, the limit for a .skill archive.`,
          },
          413,
        ),
    }),
    async (c) => {
      requireAdmin(c, "install skills");
      const force = ["true", "1"].includes(parseQuery(c, InstallQuery).force ?? "");
      const file = await receiveArchive(c);
      const shownName = path.basename(file.name || "upload.skill").slice(0, 100);
      const staging = await fs.promises.mkdtemp(path.join(os.tmpdir(), "deerflow-skill-"));
      const archive = path.join(staging, "upload.skill");
      let installedName: string;
      try {
        await fs.promises.writeFile(archive, Buffer.from(await file.arrayBuffer()), { mode: 0o600 });
        const installed = await installSkillArchive(
          archive,
          customSkillsDir(path.resolve(context.config.skills.path)),
          { force },
        );
        installedName = installed.name;
      } catch (error) {
        if (!isHarnessError(error) || error.code !== "skill_rejected") throw error;
        // The temp path means nothing to the client: name its file, and say how to replace over HTTP.
        const customDir = customSkillsDir(path.resolve(context.config.skills.path));
        const detail = error.message
          .split(archive)
          .join(shownName)
          // Host folders are not the client's business: the skill's name says which one.
          .split(customDir)
          .join("custom skills")
          .replace("pass --force to replace it", "add ?force=true to replace it");
        throw new HttpError(/is already installed/.test(detail) ? 409 : 422, detail);
      } finally {
        await fs.promises.rm(staging, { recursive: true, force: true });
      }
      context.harness.reloadSkills();
      return c.json(describe(context, find(installedName)), 201);
    },
  );

  api.get("/skills", (c) => c.json({ skills: installed(context).skills.map((skill) => describe(context, skill)) }));
  api.get("/skills/:name", (c) => c.json(describe(context, find(c.req.param("name")))));

  api.put("/skills/:name", async (c) => {
    requireAdmin(c, "enable or disable skills");
    const body = await parseBody(c, ToggleSchema);
    const skill = find(c.req.param("name"));
    const { extensionsFile } = installed(context);
    try {
      setSkillEnabled(extensionsFile, skill.name, body.enabled);
    } catch (error) {
      throw new HttpError(409, `The skill state could not be saved: ${(error as Error).message.split("\n")[0]}`);
    }
    context.harness.reloadSkills();
    return c.json(describe(context, find(skill.name)));
  });
};
