/**
 * Custom agents on disk, DeerFlow's layout: `{home}/agents/{name}/` for the home's local user and
 * `{home}/users/{id}/agents/{name}/` for a user of a server with accounts, each holding `config.yaml`
 * (the settings), `SOUL.md` and, once edited through the assistants API, `assistant.json` (its id,
 * metadata and earlier versions). The agent's memory lives in the same directory, so deleting the agent
 * deletes what it learned. Files rather than rows because the CLI, the server and a hand-made directory
 * must all see the same agents, and every process of a cluster already shares the home.
 *
 * Owner scoping is by directory: a user's lookups never leave their own folder, so another user's agent
 * is simply missing.
 */
import fs from "node:fs";
import path from "node:path";
import { parse, stringify } from "yaml";
import { ConfigError, HarnessError } from "../errors.js";
import { writeFileAtomic } from "../memory/atomic-write.js";
import { normaliseUserId } from "../memory/memory-path.js";
import { type AgentDefinition, AgentSettings, normaliseAgentDefinitionName, SETTING_KEYS } from "./agent-definition.js";

const CONFIG = "config.yaml";
const SOUL = "SOUL.md";
const RECORD = "assistant.json";

/** One saved version of an agent (the assistants API's versions). */
export interface AgentVersion {
  version: number;
  settings: AgentSettings;
  soul: string;
  metadata: Record<string, unknown>;
  created_at: string;
}

/** What the assistants API keeps beside the agent. */
export interface AgentRecord {
  /** Set when a client chose the id at creation; else it is derived from owner and name. */
  assistant_id?: string;
  metadata: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
  versions: AgentVersion[];
}

/** The changes of an edit: absent keys stay as they are, `null` clears a setting. */
export interface AgentChanges {
  settings?: Partial<Record<(typeof SETTING_KEYS)[number], unknown>>;
  soul?: string;
  metadata?: Record<string, unknown>;
}

/** The file store of custom agents. `owner` null: the home's local user. */
export interface AgentStore {
  /** The owner's agents, sorted by name. Unreadable ones are skipped with a warning. */
  list(owner: string | null): AgentDefinition[];
  /** The agent, or null when the owner has none of that name. Throws `ConfigError` for a bad name or file. */
  get(name: string, owner: string | null): AgentDefinition | null;
  /** Creates the agent; `agent_exists` when the owner already has one of that name. */
  create(
    name: string,
    input: {
      settings?: AgentChanges["settings"];
      soul?: string;
      metadata?: Record<string, unknown>;
      assistantId?: string;
    },
    owner: string | null,
  ): AgentDefinition;
  /** Applies `changes` as a new version; `agent_not_found` when there is no such agent. */
  update(name: string, changes: AgentChanges, owner: string | null): AgentDefinition;
  /** Deletes the agent with its files and memory; false when there was none. */
  delete(name: string, owner: string | null): boolean;
  /** The assistants record (created on first read from the current files). */
  record(name: string, owner: string | null): AgentRecord;
  /** Makes `version` the current one (its settings and soul); `agent_not_found` for an unknown version. */
  setLatest(name: string, version: number, owner: string | null): AgentDefinition;
  /**
   * Gives the local user's agents to `userId` (the first admin of a home that gets accounts): their
   * config.yaml, SOUL.md and record move into the user's folder, unless the user already has that agent.
   * Returns the names moved.
   */
  adoptLocal(userId: string): string[];
}

/** The directory of an owner's agents. */
export function agentsDir(home: string, owner: string | null): string {
  const id = normaliseUserId(owner);
  return id === undefined ? path.join(home, "agents") : path.join(home, "users", id, "agents");
}

/**
 * Opens the store under `home`.
 *
 * @example
 * const agents = createAgentStore(home);
 * agents.create("researcher", { soul: "You cite sources.", settings: { tool_groups: ["web"] } }, null);
 */
export function createAgentStore(home: string, options: { onWarning?: (message: string) => void } = {}): AgentStore {
  const warn = options.onWarning ?? (() => {});
  const dirOf = (name: string, owner: string | null) =>
    path.join(agentsDir(home, owner), normaliseAgentDefinitionName(name));

  const isAgent = (dir: string, owner: string | null) => {
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return false;
    // The local user's folders count as they are (the layout before agents had settings); a user's folder
    // needs config.yaml or SOUL.md, so a memory-only folder is not taken for an agent.
    return owner === null || fs.existsSync(path.join(dir, CONFIG)) || fs.existsSync(path.join(dir, SOUL));
  };

  const read = (name: string, owner: string | null): AgentDefinition | null => {
    const dir = dirOf(name, owner);
    if (!isAgent(dir, owner)) return null;
    const key = path.basename(dir);
    let raw: unknown = {};
    const configFile = path.join(dir, CONFIG);
    if (fs.existsSync(configFile)) {
      try {
        raw = parse(fs.readFileSync(configFile, "utf8")) ?? {};
      } catch (error) {
        throw new ConfigError(`${configFile} is not valid YAML: ${(error as Error).message}. Fix or delete it.`);
      }
    }
    const parsed = AgentSettings.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(
        `${configFile}: ${issue.path.join(".") || "(top level)"}: ${issue.message}. Fix the file or edit the agent again.`,
      );
    }
    const soulFile = path.join(dir, SOUL);
    const soul = fs.existsSync(soulFile) ? fs.readFileSync(soulFile, "utf8") : "";
    return { name: key, settings: { ...parsed.data, name: key }, soul, owner, dir };
  };

  const write = (dir: string, name: string, settings: AgentSettings, soul: string | undefined) => {
    writeFileAtomic(path.join(dir, CONFIG), stringify(minimal({ ...settings, name })));
    if (soul !== undefined) writeFileAtomic(path.join(dir, SOUL), soul);
  };

  const readRecord = (definition: AgentDefinition): AgentRecord => {
    const file = path.join(definition.dir, RECORD);
    if (fs.existsSync(file)) {
      try {
        return JSON.parse(fs.readFileSync(file, "utf8")) as AgentRecord;
      } catch {
        warn(`${file} is not valid JSON; starting the agent's version history again.`);
      }
    }
    const at = fs.statSync(definition.dir).mtime.toISOString();
    return {
      metadata: {},
      version: 1,
      created_at: at,
      updated_at: at,
      versions: [{ version: 1, settings: definition.settings, soul: definition.soul, metadata: {}, created_at: at }],
    };
  };

  const require = (name: string, owner: string | null) => {
    const found = read(name, owner);
    if (!found) throw notFound(name);
    return found;
  };

  return {
    list(owner) {
      let entries: string[];
      try {
        entries = fs.readdirSync(agentsDir(home, owner));
      } catch {
        return [];
      }
      const agents: AgentDefinition[] = [];
      for (const entry of entries.sort()) {
        if (!/^[a-z0-9-]+$/.test(entry)) continue;
        try {
          const found = read(entry, owner);
          if (found) agents.push(found);
        } catch (error) {
          warn(`Agent "${entry}" is skipped: ${(error as Error).message}`);
        }
      }
      return agents;
    },
    get: read,
    create(name, input, owner) {
      const dir = dirOf(name, owner);
      const key = path.basename(dir);
      if (isAgent(dir, owner)) {
        throw new HarnessError("agent_exists", `Agent "${key}" already exists. Pick another name, or edit it instead.`);
      }
      const settings = applyChanges({ description: "" }, input.settings ?? {});
      fs.mkdirSync(dir, { recursive: true });
      write(dir, key, settings, input.soul ?? "");
      const at = new Date().toISOString();
      const metadata = input.metadata ?? {};
      const record: AgentRecord = {
        ...(input.assistantId ? { assistant_id: input.assistantId } : {}),
        metadata,
        version: 1,
        created_at: at,
        updated_at: at,
        versions: [{ version: 1, settings, soul: input.soul ?? "", metadata, created_at: at }],
      };
      writeFileAtomic(path.join(dir, RECORD), JSON.stringify(record, null, 2));
      return require(key, owner);
    },
    update(name, changes, owner) {
      const current = require(name, owner);
      const record = readRecord(current);
      const settings = applyChanges(current.settings, changes.settings ?? {});
      const soul = changes.soul ?? current.soul;
      write(current.dir, current.name, settings, changes.soul);
      const at = new Date().toISOString();
      const metadata = changes.metadata ?? record.metadata;
      const version = Math.max(...record.versions.map((entry) => entry.version), record.version) + 1;
      const next: AgentRecord = {
        ...record,
        metadata,
        version,
        updated_at: at,
        versions: [...record.versions, { version, settings, soul, metadata, created_at: at }],
      };
      writeFileAtomic(path.join(current.dir, RECORD), JSON.stringify(next, null, 2));
      return require(name, owner);
    },
    delete(name, owner) {
      const dir = dirOf(name, owner);
      if (!isAgent(dir, owner)) return false;
      fs.rmSync(dir, { recursive: true, force: true });
      return true;
    },
    record: (name, owner) => readRecord(require(name, owner)),
    adoptLocal(userId) {
      const moved: string[] = [];
      for (const agent of this.list(null)) {
        const to = dirOf(agent.name, userId);
        if (isAgent(to, userId)) continue;
        fs.mkdirSync(to, { recursive: true });
        for (const file of [CONFIG, SOUL, RECORD]) {
          const from = path.join(agent.dir, file);
          if (fs.existsSync(from)) fs.renameSync(from, path.join(to, file));
        }
        // An agent folder with neither file (the old layout) still becomes the user's.
        if (!fs.existsSync(path.join(to, CONFIG))) write(to, agent.name, agent.settings, agent.soul);
        if (fs.readdirSync(agent.dir).length === 0) fs.rmdirSync(agent.dir);
        moved.push(agent.name);
      }
      return moved;
    },
    setLatest(name, version, owner) {
      const current = require(name, owner);
      const record = readRecord(current);
      const chosen = record.versions.find((entry) => entry.version === version);
      if (!chosen) {
        throw new HarnessError(
          "agent_not_found",
          `Agent "${current.name}" has no version ${version}. Versions: ${record.versions.map((entry) => entry.version).join(", ")}.`,
        );
      }
      write(current.dir, current.name, chosen.settings, chosen.soul);
      const next: AgentRecord = { ...record, version, metadata: chosen.metadata, updated_at: new Date().toISOString() };
      writeFileAtomic(path.join(current.dir, RECORD), JSON.stringify(next, null, 2));
      return require(name, owner);
    },
  };
}

function notFound(name: string): HarnessError {
  return new HarnessError("agent_not_found", `Agent "${name}" does not exist.`);
}

/** `settings` with `changes` applied and validated: `null` clears, absent keeps, unknown keys are refused. */
function applyChanges(settings: AgentSettings, changes: NonNullable<AgentChanges["settings"]>): AgentSettings {
  const unknown = Object.keys(changes).filter((key) => !(SETTING_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown agent setting ${unknown.join(", ")}. Settings: ${SETTING_KEYS.join(", ")}.`);
  }
  const merged: Record<string, unknown> = { ...settings };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const parsed = AgentSettings.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Agent setting ${issue.path.join(".")}: ${issue.message}.`);
  }
  return parsed.data;
}

/** The settings as written: unset ones left out, so the file stays short and "unset" reads back as unset. */
function minimal(settings: AgentSettings): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).filter(
      ([key, value]) => value !== null && value !== undefined && !(key === "description" && value === ""),
    ),
  );
}
