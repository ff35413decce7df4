/**
 * `present_files`: shows finished files to the user. Only files under `/mnt/user-data/outputs` may be
 * presented (relative paths are taken relative to outputs); the tool records their virtual paths in
 * the `artifacts` channel, which the CLI lists with host paths and a UI renders.
 */
import { Command } from "@langchain/langgraph";
import { ToolMessage } from "langchain";
import path from "node:path";
import { z } from "zod";
import type { PathPolicy } from "../sandbox/path-policy.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { VIRTUAL_OUTPUTS, isInsideDir } from "../sandbox/virtual-paths.js";
import { type ToolFailure, sandboxTool, toolFailure } from "./sandbox-tool.js";
import { statTarget } from "./text-file.js";

/** Checks each path; returns the virtual paths to present, or the failure naming the bad ones. */
export function checkPresentable(
  policy: PathPolicy,
  outputsDir: string,
  filepaths: readonly string[],
): string[] | ToolFailure {
  if (filepaths.length === 0)
    return toolFailure("filepaths is empty. List the files in /mnt/user-data/outputs to present.");
  const accepted: string[] = [];
  const problems: string[] = [];
  for (const input of filepaths) {
    const asOutput =
      typeof input === "string" && input !== "" && !input.startsWith("/") ? `${VIRTUAL_OUTPUTS}/${input}` : input;
    const target = policy.resolve(asOutput, "read");
    if (!target.ok) {
      problems.push(target.error);
      continue;
    }
    const realOutputs = policy.resolve(VIRTUAL_OUTPUTS, "read");
    const outputsReal = realOutputs.ok ? realOutputs.realPath : outputsDir;
    if (
      !isInsideDir(target.virtualPath, VIRTUAL_OUTPUTS) ||
      target.virtualPath === VIRTUAL_OUTPUTS ||
      !isInsideDir(target.realPath, outputsReal)
    ) {
      problems.push(`Only files in /mnt/user-data/outputs can be presented: ${target.virtualPath}`);
      continue;
    }
    if (!statTarget(target)) {
      problems.push(`File not found: ${target.virtualPath}`);
      continue;
    }
    if (!accepted.includes(target.virtualPath)) accepted.push(target.virtualPath);
  }
  if (problems.length > 0)
    return toolFailure(
      `${problems.join("; ")}. Nothing was presented; move the files into /mnt/user-data/outputs and try again.`,
    );
  return accepted;
}

/** Builds the `present_files` tool. */
export function createPresentFilesTool(options: { provider: SandboxProvider }) {
  return sandboxTool({
    name: "present_files",
    provider: options.provider,
    description:
      "Show finished files to the user. Call it once, after the files are written, with every file to deliver. " +
      "Only files in /mnt/user-data/outputs can be presented; do not present scratch or intermediate files.",
    schema: z.object({
      filepaths: z
        .array(z.string())
        .describe("Absolute paths of files in /mnt/user-data/outputs, e.g. /mnt/user-data/outputs/report.md."),
    }),
    run: async ({ filepaths }, { sandbox, runtime }) => {
      const accepted = checkPresentable(sandbox.policy, sandbox.paths.outputs_path, filepaths);
      if ("error" in accepted) return accepted;
      const names = accepted.map((file) => path.posix.basename(file)).join(", ");
      return new Command({
        update: {
          artifacts: accepted,
          messages: [
            new ToolMessage({
              content: `Successfully presented files: ${names}`,
              name: "present_files",
              tool_call_id: runtime?.toolCallId ?? "",
            }),
          ],
        },
      });
    },
  });
}
