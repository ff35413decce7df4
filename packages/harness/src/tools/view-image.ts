/**
 * `view_image` (vision models only): checks an image in the thread's files and records its path, MIME
 * type and size in `viewed_images`. The bytes are not put in state or in the ToolMessage; the
 * view-image middleware reads them when it builds the one multimodal message the model sees next.
 */
import { Command } from "@langchain/langgraph";
import { ToolMessage } from "langchain";
import { z } from "zod";
import type { AllowedPath, PathPolicy } from "../sandbox/path-policy.js";
import { readFileChecked } from "../sandbox/safe-fs.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { USER_DATA_DIRS, VIRTUAL_USER_DATA, isInsideDir } from "../sandbox/virtual-paths.js";
import type { ViewedImage } from "../state/shapes.js";
import { checkImage } from "./image-format.js";
import { VIEW_IMAGE_MAX_BYTES } from "./limits.js";
import { type ToolFailure, sandboxTool, toolFailure } from "./sandbox-tool.js";
import { statTarget } from "./text-file.js";

/** True when the virtual path is in workspace, uploads or outputs (not skills, not the user-data root). */
export function isViewableLocation(virtualPath: string): boolean {
  return USER_DATA_DIRS.some(
    (dir) => isInsideDir(virtualPath, `${VIRTUAL_USER_DATA}/${dir}`) && virtualPath !== `${VIRTUAL_USER_DATA}/${dir}`,
  );
}

/**
 * Validates an image for viewing: location, existence, size, extension and magic bytes. Returns the
 * `viewed_images` entry or the failure. Shared with the view-image middleware, which re-checks
 * before reading the bytes.
 */
export async function inspectImage(
  policy: PathPolicy,
  input: string,
  maxBytes: number = VIEW_IMAGE_MAX_BYTES,
): Promise<{ target: AllowedPath; image: ViewedImage } | ToolFailure> {
  const target = policy.resolve(input, "read");
  if (!target.ok) return toolFailure(target.error, { verbatim: true });
  if (!isViewableLocation(target.virtualPath)) {
    return toolFailure(
      `Only images in /mnt/user-data/workspace, uploads or outputs can be viewed: ${target.virtualPath}`,
    );
  }
  const stat = statTarget(target);
  if (!stat || !stat.isFile()) return toolFailure(`Image file not found: ${target.virtualPath}`);
  if (stat.size > maxBytes) {
    return toolFailure(
      `Image file is too large: ${stat.size} bytes (at most ${maxBytes} bytes): ${target.virtualPath}`,
    );
  }
  const { data } = await readFileChecked(policy, target, 16);
  const format = checkImage(target.virtualPath, data);
  if ("error" in format) return format;
  return { target, image: { mime_type: format.mimeType, size: stat.size, actual_path: target.realPath } };
}

/** Builds the `view_image` tool. */
export function createViewImageTool(options: { provider: SandboxProvider }) {
  return sandboxTool({
    name: "view_image",
    provider: options.provider,
    description:
      "Look at an image file (png, jpg, jpeg, gif or webp, at most 20 MiB) in /mnt/user-data/workspace, uploads or outputs. " +
      "The image is shown to you right after this call.",
    schema: z.object({
      image_path: z.string().describe("Absolute path of the image, e.g. /mnt/user-data/uploads/photo.png."),
    }),
    run: async ({ image_path }, { sandbox, runtime }) => {
      const result = await inspectImage(sandbox.policy, image_path);
      if ("error" in result) return result;
      return new Command({
        update: {
          viewed_images: { [result.target.virtualPath]: result.image },
          messages: [
            new ToolMessage({
              content: "Successfully read image",
              name: "view_image",
              tool_call_id: runtime?.toolCallId ?? "",
            }),
          ],
        },
      });
    },
  });
}
