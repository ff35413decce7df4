/**
 * `deerflow agents list | show NAME | create NAME | edit NAME | delete NAME`: the home's custom agents
 * (`{home}/agents/NAME/`: SOUL.md and config.yaml), the same ones `deerflow serve` offers the local user
 * and `--agent NAME` runs. The soul comes from `--soul TEXT` or `--soul-file FILE` ("-" reads stdin);
 * settings from flags, where `--clear KEY` removes a setting.
 */
import fs from "node:fs";
import {
  type AgentDefinition,
  createAgentStore,
  loadConfig,
  resolveHome,
  SETTING_KEYS,
  selectModel,
  TOOL_GROUPS,
} from "@deerflow/harness";
import { parseCommandArgs } from "../command-args.js";
import { UsageError } from "../usage-error.js";

const ACTIONS = ["list", "show", "create", "edit", "delete"];
const LISTS = ["tool-groups", "skills", "mcp-servers", "subagents"] as const;

/** Entry point of `deerflow agents`. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs("agents", {
    args: argv,
    options: {
      config: { type: "string" },
      json: { type: "boolean", default: false },
      soul: { type: "string" },
      "soul-file": { type: "string" },
      description: { type: "string" },
      model: { type: "string" },
      temperature: { type: "string" },
      "max-tokens": { type: "string" },
      "tool-groups": { type: "string" },
      skills: { type: "string" },
      "mcp-servers": { type: "string" },
      subagents: { type: "string" },
      clear: { type: "string", multiple: true },
    },
    allowPositionals: true,
    strict: true,
  });
  const [action = "list", name, ...extra] = parsed.positionals;
  if (!ACTIONS.includes(action))
    throw new UsageError(`Unknown agents action "${action}". Use one of: ${ACTIONS.join(", ")}.`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}". See deerflow agents --help.`);
  if (action !== "list" && !name) throw new UsageError(`Give the agent's name: deerflow agents ${action} NAME.`);
  const config = loadConfig({ path: parsed.values.config });
  const store = createAgentStore(resolveHome(), {
    onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
  });
  const values = parsed.values;

  if (action === "list") {
    const agents = store.list(null);
    if (values.json) process.stdout.write(`${JSON.stringify(agents.map(describe), null, 2)}\n`);
    else if (agents.length === 0)
      process.stderr.write("No custom agents yet. Create one: deerflow agents create NAME --soul TEXT\n");
    else for (const agent of agents) process.stdout.write(`${agent.name}\t${agent.settings.description || "-"}\n`);
    return 0;
  }
  if (action === "show") {
    const agent = store.get(name!, null);
    if (!agent) return missing(name!);
    process.stdout.write(`${JSON.stringify(describe(agent), null, 2)}\n`);
    return 0;
  }
  if (action === "delete") {
    if (!store.delete(name!, null)) return missing(name!);
    process.stderr.write(`Deleted agent ${name!.toLowerCase()} with its soul, settings and memory.\n`);
    return 0;
  }

  const settings: Record<string, unknown> = {};
  if (values.description !== undefined) settings.description = values.description;
  if (values.model !== undefined) {
    selectModel(config, { modelName: values.model }); // an unknown model fails here, naming the configured ones
    settings.model = values.model;
  }
  for (const flag of LISTS) {
    const raw = values[flag];
    if (raw !== undefined)
      settings[flag.replace("-", "_")] = raw
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
  }
  const groups = settings.tool_groups as string[] | undefined;
  const known = [...TOOL_GROUPS, ...config.tools.flatMap((tool) => (tool.group ? [tool.group] : []))];
  const bad = groups?.filter((group) => !known.includes(group)) ?? [];
  if (bad.length > 0) throw new UsageError(`Unknown tool group ${bad.join(", ")}. Known groups: ${known.join(", ")}.`);
  const modelSettings: Record<string, number> = {};
  for (const [flag, key] of [
    ["temperature", "temperature"],
    ["max-tokens", "max_tokens"],
  ] as const) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const number = Number(raw);
    if (!Number.isFinite(number)) throw new UsageError(`--${flag} takes a number, got "${raw}".`);
    modelSettings[key] = number;
  }
  if (Object.keys(modelSettings).length > 0) {
    const current = action === "edit" ? (store.get(name!, null)?.settings.model_settings ?? {}) : {};
    settings.model_settings = { ...current, ...modelSettings };
  }
  for (const key of values.clear ?? []) {
    const setting = key.replace(/-/g, "_");
    if (!(SETTING_KEYS as readonly string[]).includes(setting))
      throw new UsageError(`--clear takes a setting: ${SETTING_KEYS.join(", ")}; got "${key}".`);
    settings[setting] = null;
  }
  const soul = readSoul(values.soul, values["soul-file"]);

  if (action === "create") {
    const created = store.create(name!, { settings, soul: soul ?? "" }, null);
    process.stderr.write(
      `Created agent ${created.name} in ${created.dir}. Run it: deerflow chat --agent ${created.name}\n`,
    );
    return 0;
  }
  if (!store.get(name!, null)) return missing(name!);
  if (soul === undefined && Object.keys(settings).length === 0)
    throw new UsageError("Nothing to change: give --soul, --soul-file, a setting flag or --clear KEY.");
  const updated = store.update(name!, { settings, ...(soul === undefined ? {} : { soul }) }, null);
  process.stderr.write(`Updated agent ${updated.name}.\n`);
  return 0;
}

function readSoul(text: string | undefined, file: string | undefined): string | undefined {
  if (text !== undefined && file !== undefined) throw new UsageError("Give --soul or --soul-file, not both.");
  if (file === undefined) return text;
  try {
    return fs.readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read --soul-file ${file}: ${(error as Error).message}`);
  }
}

function missing(name: string): number {
  process.stderr.write(`deerflow: No agent named "${name}". List them with: deerflow agents list\n`);
  return 1;
}

function describe(agent: AgentDefinition) {
  const { name: _name, ...settings } = agent.settings;
  return { name: agent.name, ...settings, soul: agent.soul, dir: agent.dir };
}
