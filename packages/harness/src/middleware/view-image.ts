/**
 * Chain slot 10 (vision models only). `view_image` records only an image's path, type and size; this
 * middleware shows the pictures to the model. When every call of the latest AI message has its result
 * and at least one was `view_image`, the next model request gets one extra human message with the
 * images as data URLs, and afterwards `viewed_images` is cleared. The message exists only in that
 * request, never in `messages`, so checkpoints never hold image bytes (DeerFlow inserts it and removes
 * it after the call; the effect is the same). Each image is re-checked (location, size, format) before
 * its bytes are read, since the file may have changed since the tool call; one whose size changed is left out.
 */
import path from "node:path";
import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { PathPolicy } from "../sandbox/path-policy.js";
import { readFileChecked } from "../sandbox/safe-fs.js";
import { threadUserDataDir } from "../sandbox/virtual-paths.js";
import type { ThreadDataState, ViewedImage } from "../state/shapes.js";
import { threadStateSubset } from "../state/thread-state.js";
import { VIEW_IMAGE_MAX_BYTES } from "../tools/limits.js";
import { inspectImage } from "../tools/view-image.js";
import type { Logger } from "../logger.js";

/** Options of {@link viewImageMiddleware}. */
export interface ViewImageOptions {
  /** DeerFlow home, used when `thread_data` is missing from state. */
  home: string;
  /** Largest image sent. Default 20 MiB. */
  maxBytes?: number;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** Marker on the injected message (DeerFlow's key), so other code can recognise it. */
export const VIEW_IMAGE_CONTEXT_KEY = "deerflow_view_image_context";

/**
 * True when the latest AI message called `view_image` and every one of its calls has a result, with
 * nothing but those results after it: the moment to show the images.
 */
export function imagesAwaitingView(messages: readonly BaseMessage[]): boolean {
  const index = messages.findLastIndex((message) => AIMessage.isInstance(message));
  if (index < 0) return false;
  const calls = (messages[index] as AIMessage).tool_calls ?? [];
  if (!calls.some((call) => call.name === "view_image")) return false;
  const after = messages.slice(index + 1);
  if (!after.every((message) => ToolMessage.isInstance(message))) return false;
  const answered = new Set(after.map((message) => (message as ToolMessage).tool_call_id));
  return calls.every((call) => call.id !== undefined && answered.has(call.id));
}

/** Loads one image as a data URL after re-checking it; returns an error text instead when it fails. */
export type ImageLoader = (
  virtualPath: string,
  image: ViewedImage,
) => Promise<{ mimeType: string; base64: string } | { error: string }>;

/** The multimodal message showing `images` (keyed by virtual path). */
export async function buildViewedImagesMessage(
  images: Record<string, ViewedImage>,
  load: ImageLoader,
): Promise<HumanMessage> {
  const content: Array<Record<string, unknown>> = [{ type: "text", text: "Here are the images you've viewed:" }];
  for (const [virtualPath, image] of Object.entries(images)) {
    const loaded = await load(virtualPath, image);
    if ("error" in loaded) {
      content.push({ type: "text", text: `\n- **${virtualPath}**: could not be shown (${loaded.error})` });
      continue;
    }
    content.push({ type: "text", text: `\n- **${virtualPath}** (${loaded.mimeType})` });
    content.push({ type: "image_url", image_url: { url: `data:${loaded.mimeType};base64,${loaded.base64}` } });
  }
  return new HumanMessage({
    id: `view-image-context:${randomUUID()}`,
    content: content as HumanMessage["content"],
    additional_kwargs: { [VIEW_IMAGE_CONTEXT_KEY]: true, hide_from_ui: true },
  });
}

/**
 * An {@link ImageLoader} that re-runs `view_image`'s checks through the thread's path policy. An image
 * whose size is not the one `view_image` recorded (rewritten, or still being written) is not sent: the
 * model would see a picture other than the one its tool call described.
 */
export function policyImageLoader(policy: PathPolicy, maxBytes: number): ImageLoader {
  return async (virtualPath, viewed) => {
    const checked = await inspectImage(policy, virtualPath, maxBytes);
    if ("error" in checked) return checked;
    const changed = (size: number) => ({
      error: `the file changed since view_image read it (${viewed.size} bytes then, ${size} now); call view_image again to see it`,
    });
    if (checked.image.size !== viewed.size) return changed(checked.image.size);
    const { data } = await readFileChecked(policy, checked.target, maxBytes);
    if (data.length !== viewed.size) return changed(data.length);
    return { mimeType: checked.image.mime_type, base64: data.toString("base64") };
  };
}

function policyFor(threadData: ThreadDataState | null | undefined, home: string, threadId: unknown): PathPolicy | null {
  if (threadData?.workspace_path) return new PathPolicy({ userDataDir: path.dirname(threadData.workspace_path) });
  if (typeof threadId !== "string") return null;
  try {
    return new PathPolicy({ userDataDir: threadUserDataDir(home, threadId) });
  } catch {
    return null;
  }
}

/**
 * Shows viewed images to a vision model once, then clears `viewed_images`.
 *
 * @example
 * ```ts
 * const middleware = model.supportsVision ? [viewImageMiddleware({ home })] : [];
 * ```
 */
export function viewImageMiddleware(options: ViewImageOptions) {
  const maxBytes = options.maxBytes ?? VIEW_IMAGE_MAX_BYTES;
  return createMiddleware({
    name: "view-image",
    stateSchema: threadStateSubset("viewed_images", "thread_data"),
    wrapModelCall: async (request, handler) => {
      const images = request.state.viewed_images ?? {};
      if (Object.keys(images).length === 0 || !imagesAwaitingView(request.messages)) return handler(request);
      const policy = policyFor(request.state.thread_data, options.home, request.runtime.configurable?.thread_id);
      if (!policy) return handler(request);
      const message = await buildViewedImagesMessage(images, policyImageLoader(policy, maxBytes));
      options.logger?.debug(`showed ${Object.keys(images).length} image(s) to the model`);
      return handler({ ...request, messages: [...request.messages, message] });
    },
    afterModel: (state) => {
      const images = state.viewed_images ?? {};
      if (Object.keys(images).length === 0 || !imagesAwaitingView(state.messages.slice(0, -1))) return undefined;
      return { viewed_images: {} };
    },
  });
}
