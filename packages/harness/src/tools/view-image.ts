/**
 * `view_image` (vision models only): checks an image in the thread's files and records its path, MIME
 * type and size in `viewed_images`. The bytes are not put in state or in the ToolMessage; the
 * view-image middleware reads them when it builds the one multimodal message the model sees next.
 */
import { Command } from "@langchain/langgraph";
import { ToolMessage, tool } from "langchain";
import { z } from "zod";
import type { AllowedPath, PathPolicy } from "../sandbox/path-policy.js";
import { readFileChecked } from "../sandbox/safe-fs.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { USER_DATA_DIRS, VIRTUAL_USER_DATA, isInsideDir } from "../sandbox/virtual-paths.js";
import type { ViewedImage } from "../state/reducers.js";
import { checkImage } from "./image-format.js";
import { VIEW_IMAGE_MAX_BYTES } from "./limits.js";
import { sandboxForRuntime, type SandboxToolRuntime, unexpectedError } from "./sandbox-runtime.js";
import { statTarget } from "./text-file.js";

/** True when the virtual path is in workspace, uploads or outputs (not skills, not the user-data root). */
export function isViewableLocation(virtualPath: string): boolean {
  return USER_DATA_DIRS.some((dir) => isInsideDir(virtualPath, `${VIRTUAL_USER_DATA}/${dir}`) && virtualPath !== `${VIRTUAL_USER_DATA}/${dir}`);
}

/**
 * Validates an image for viewing: location, existence, size, extension and magic bytes. Returns the
 * `viewed_images` entry or the error text. Shared with the view-image middleware, which re-checks
 * before reading the bytes.
 */
export async function inspectImage(
  policy: PathPolicy,
  input: string,
  maxBytes: number = VIEW_IMAGE_MAX_BYTES,
): Promise<{ target: AllowedPath; image: ViewedImage } | { error: string }> {
  const target = policy.resolve(input, "read");
  if (!target.ok) return { error: target.error };
  if (!isViewableLocation(target.virtualPath)) {
    return { error: `Error: Only images in /mnt/user-data/workspace, uploads or outputs can be viewed: ${target.virtualPath}` };
  }
  const stat = statTarget(target);
  if (!stat || !stat.isFile()) return { error: `Error: Image file not found: ${target.virtualPath}` };
  if (stat.size > maxBytes) {
    return { error: `Error: Image file is too large: ${stat.size} bytes (at most ${maxBytes} bytes): ${target.virtualPath}` };
  }
  const { data } = await readFileChecked(policy, target, 16);
  const format = checkImage(target.virtualPath, data);
  if (typeof format === "string") return { error: format };
  return { target, image: { mime_type: format.mimeType, size: stat.size, actual_path: target.realPath } };
}

/** Builds the `view_image` tool. */
export function createViewImageTool(options: { provider: SandboxProvider }) {
  return tool(
    async ({ image_path }, runtime: SandboxToolRuntime) => {
      const sandbox = sandboxForRuntime(options.provider, runtime);
      if (typeof sandbox === "string") return sandbox;
      try {
        const result = await inspectImage(sandbox.policy, image_path);
        if ("error" in result) return sandbox.mask(result.error);
        return new Command({
          update: {
            viewed_images: { [result.target.virtualPath]: result.image },
            messages: [
              new ToolMessage({ content: "Successfully read image", name: "view_image", tool_call_id: runtime?.toolCallId ?? "" }),
            ],
          },
        });
      } catch (error) {
        return unexpectedError("view_image", error, sandbox);
      }
    },
    {
      name: "view_image",
      description:
        "Look at an image file (png, jpg, jpeg, gif or webp, at most 20 MiB) in /mnt/user-data/workspace, uploads or outputs. " +
        "The image is shown to you right after this call.",
      schema: z.object({
        image_path: z.string().describe("Absolute path of the image, e.g. /mnt/user-data/uploads/photo.png."),
      }),
    },
  );
}
