/**
 * `/skill-name` at the start of a user message activates that skill for the turn: the skill's SKILL.md
 * is put into the model request as a hidden message right before the user's message, so the model
 * follows it without first spending a call on `read_file`. The user's message itself is not changed and
 * nothing is written to `messages`: the activation exists in this turn's requests only, and the next
 * turn (without the slash) is back to progressive disclosure.
 *
 * An unknown `/word` is left alone (it may be a path or plain text). A skill that is installed but
 * disabled gets a visible answer saying how to enable it instead of a silent no-op.
 */
import { readFileSync } from "node:fs";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { parseSlashSkill } from "../skills/slash.js";
import { escapeData } from "../messages/text.js";
import type { Logger } from "../logger.js";

/** A skill that `/name` can activate. */
export interface ActivatableSkill {
  name: string;
  category: string;
  /** Virtual path of its SKILL.md, e.g. `/mnt/skills/public/deep-research/SKILL.md`. */
  location: string;
  /** Host path of that SKILL.md, read when the skill is activated. */
  hostPath: string;
}

/** Options of {@link skillActivationMiddleware}. */
export interface SkillActivationOptions {
  /** Enabled skills. */
  skills: readonly ActivatableSkill[];
  /** Names of installed but disabled skills, answered with how to enable them. */
  disabled?: readonly string[];
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** Marker on the injected message, so other code (and UIs) can recognise it. */
export const SLASH_ACTIVATION_FLAG = "slash_skill_activation";

/** The text of the user's message as they typed it (before the uploads block was put in front). */
function userText(message: BaseMessage): string {
  const original = message.additional_kwargs?.original_user_content;
  return typeof original === "string" ? original : message.text;
}

/** Index of the latest message the user wrote (hidden framework messages skipped), or -1. */
export function latestUserMessageIndex(messages: readonly BaseMessage[]): number {
  return messages.findLastIndex(
    (message) => HumanMessage.isInstance(message) && !message.additional_kwargs?.hide_from_ui,
  );
}

/** The hidden activation block for `skill`, with its SKILL.md escaped as data. */
export function renderSlashActivation(skill: ActivatableSkill, skillFile: string, rest: string): string {
  return [
    "<slash_skill_activation>",
    `The user started their message with /${skill.name}, which activates the \`${skill.name}\` skill for this turn.`,
    rest
      ? "Their request is the text after the command in the next message."
      : "The next message has no text after the command: ask what they want the skill applied to, unless the skill says what to do.",
    `Follow this skill before any general approach. Its SKILL.md is included below, so there is no need to read ${skill.location} again; open other files from its folder only when the skill tells you to.`,
    `<skill name="${skill.name}" category="${skill.category}" path="${escapeData(skill.location)}">`,
    escapeData(skillFile),
    "</skill>",
    "</slash_skill_activation>",
  ].join("\n");
}

/** What activation does to one request. */
export type SlashOutcome =
  | { kind: "none" }
  | { kind: "activate"; messages: BaseMessage[]; skill: string }
  | { kind: "reply"; message: AIMessage };

/**
 * Decides what a leading `/name` in the latest user message does: activate an enabled skill (returns
 * the request messages with the activation block inserted before that message), answer for a disabled
 * one, or nothing.
 *
 * @example
 * const outcome = resolveSlashActivation(messages, { skills }, (p) => readFileSync(p, "utf8"));
 * if (outcome.kind === "activate") request = { ...request, messages: outcome.messages };
 */
export function resolveSlashActivation(
  messages: readonly BaseMessage[],
  options: SkillActivationOptions,
  readSkillFile: (hostPath: string) => string,
): SlashOutcome {
  const index = latestUserMessageIndex(messages);
  if (index < 0) return { kind: "none" };
  const target = messages[index]!;
  const slash = parseSlashSkill(userText(target));
  if (!slash) return { kind: "none" };
  const skill = options.skills.find((candidate) => candidate.name === slash.name);
  if (!skill) {
    if (!options.disabled?.includes(slash.name)) return { kind: "none" };
    return {
      kind: "reply",
      message: new AIMessage(
        `The skill /${slash.name} is installed but disabled. Enable it with \`deerflow skills enable ${slash.name}\` (or set "enabled": true for it in extensions_config.json) and send the message again.`,
      ),
    };
  }
  let skillFile: string;
  try {
    skillFile = readSkillFile(skill.hostPath);
  } catch (error) {
    return {
      kind: "reply",
      message: new AIMessage(
        `The skill /${skill.name} could not be read (${(error as Error).message}). Check that ${skill.location} exists, or reinstall the skill.`,
      ),
    };
  }
  const activation = new HumanMessage({
    id: target.id ? `${target.id}__slash_activation` : undefined,
    content: renderSlashActivation(skill, skillFile, slash.rest),
    additional_kwargs: {
      hide_from_ui: true,
      [SLASH_ACTIVATION_FLAG]: true,
      slash_skill_activation_target_id: target.id ?? null,
    },
  });
  return {
    kind: "activate",
    messages: [...messages.slice(0, index), activation, ...messages.slice(index)],
    skill: skill.name,
  };
}

/**
 * Builds the slash-activation middleware (request-only, `wrapModelCall`).
 *
 * @example
 * skillActivationMiddleware({ skills: [{ name: "report-writer", category: "public",
 *   location: "/mnt/skills/public/report-writer/SKILL.md", hostPath: "/home/me/.deer-flow/skills-view/ab12/public/report-writer/SKILL.md" }] });
 */
export function skillActivationMiddleware(options: SkillActivationOptions) {
  const cache = new Map<string, string>();
  const read = (hostPath: string) => {
    let text = cache.get(hostPath);
    if (text === undefined) {
      text = readFileSync(hostPath, "utf8");
      cache.set(hostPath, text);
    }
    return text;
  };
  return createMiddleware({
    name: "skill-activation",
    wrapModelCall: (request, handler) => {
      const outcome = resolveSlashActivation(request.messages, options, read);
      if (outcome.kind === "reply") {
        options.logger?.info("answered a slash command for a disabled or unreadable skill");
        return outcome.message;
      }
      if (outcome.kind === "activate") options.logger?.info(`activated /${outcome.skill}`);
      return handler(outcome.kind === "activate" ? { ...request, messages: outcome.messages } : request);
    },
  });
}
