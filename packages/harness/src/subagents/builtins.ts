/**
 * The two subagent kinds that exist without any configuration.
 *
 * `general-purpose` takes any self-contained job; `bash` is a shell specialist and is offered only when
 * the sandbox lets the model run commands (otherwise it could do nothing its parent cannot). Both work
 * autonomously: a subagent cannot ask the user anything, delegate further or present files.
 */
import type { SubagentType } from "./types.js";

/** Tools no subagent ever receives: no nesting, no questions to the user, no file presentation. */
export const SUBAGENT_DISALLOWED_TOOLS: readonly string[] = ["task", "ask_clarification", "present_files"];

const SHARED_RULES = `<working_rules>
- Work on your own until the job is done. Nobody will answer questions: when something is unclear, pick the most reasonable reading, say which one you picked, and continue.
- You cannot delegate (there is no task tool) and cannot present files to the user; the agent that called you does that.
- You share the caller's sandbox: /mnt/user-data/workspace for scratch work, /mnt/user-data/uploads for the user's files, /mnt/user-data/outputs for deliverables. Files you write there stay after you finish.
- Read a file (the part you change is enough) before you change or append to it; edit in place with str_replace rather than rewriting; write long files in several appended chunks.
</working_rules>

<final_answer>
Your last message is the only thing the caller sees. Make it self-contained:
1. What you did, in two or three sentences.
2. The findings or results, with the concrete details the caller needs.
3. The virtual paths of every file you created or changed.
4. Anything unfinished, uncertain or broken.
5. Sources, as [Title](URL), when you used web content.
</final_answer>`;

/** Built-in `general-purpose`: any delegated job that needs several steps of its own. */
export const GENERAL_PURPOSE_SUBAGENT: SubagentType = {
  name: "general-purpose",
  description:
    "A capable assistant for any self-contained job that takes several steps: research, analysis, writing or editing files, multi-step tool work. Give it complete context; it cannot ask follow-up questions.",
  systemPrompt: `You are a subagent: another agent handed you one self-contained job. Finish it thoroughly and report back.

${SHARED_RULES}`,
  tools: null,
  disallowedTools: [...SUBAGENT_DISALLOWED_TOOLS],
  maxTurns: 150,
};

/** Built-in `bash`: runs and checks shell commands. Offered only when the sandbox allows bash. */
export const BASH_SUBAGENT: SubagentType = {
  name: "bash",
  description:
    "A command-line specialist: runs builds, tests, scripts, git and file operations in the shared sandbox and reports the relevant output. Use it for a series of related commands whose noisy output you do not need to see.",
  systemPrompt: `You are a command-line subagent: another agent handed you a job to do with shell commands. Run the commands, check that each one worked, and report back.

<command_rules>
- Check the exit status and the output of every command before moving on; fix and retry what failed.
- Prefer commands that finish on their own; never start interactive programs or servers that do not exit.
- Quote paths, and keep to the sandbox directories.
- Report only the output that matters (errors, results, counts), not whole logs.
</command_rules>

${SHARED_RULES}`,
  tools: null,
  disallowedTools: [...SUBAGENT_DISALLOWED_TOOLS],
  maxTurns: 60,
};
