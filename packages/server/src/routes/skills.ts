/**
 * Skills (contract §B.4 tier 1, inventory §8.5): list the installed skills with their enabled state,
 * and switch one on or off. State lives where `deerflow skills enable|disable` keeps it
 * (`extensions_config.json`, through the harness's catalog code); after a change the harness reloads
 * its skills, so the next run's prompt lists the new set and new sandboxes show only enabled skills.
 */
import path from "node:path";
import { discoverSkills, findExtensionsFile, readSkillStates, type SkillRecord, setSkillEnabled, skillRoots } from "@deerflow/harness";
import { z } from "zod";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { parseBody } from "../http/validate.js";

const ToggleSchema = z.strictObject({ enabled: z.boolean() });

function installed(context: ServerContext): { skills: SkillRecord[]; extensionsFile: string } {
  const extensionsFile = findExtensionsFile({ env: context.harness.setup.env }).path;
  let states: Record<string, boolean> = {};
  try {
    states = readSkillStates(extensionsFile);
  } catch (error) {
    context.options.log(`skills: ${(error as Error).message}`);
  }
  return { skills: discoverSkills(skillRoots(path.resolve(context.config.skills.path)), states, () => {}), extensionsFile };
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
  const find = (name: string) => {
    const found = installed(context).skills.find((skill) => skill.name === name);
    if (!found) throw notFound(`Skill "${name.slice(0, 100)}"`);
    return found;
  };

  api.get("/skills", (c) => c.json({ skills: installed(context).skills.map((skill) => describe(context, skill)) }));
  api.get("/skills/:name", (c) => c.json(describe(context, find(c.req.param("name")))));

  api.put("/skills/:name", async (c) => {
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
