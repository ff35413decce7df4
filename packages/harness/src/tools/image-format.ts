/**
 * Image formats `view_image` accepts, identified twice: by extension and by magic bytes. Both must
 * agree, so a renamed executable or a text file called `x.png` never reaches a vision model as an image.
 */
import { type ToolFailure, toolFailure } from "./sandbox-tool.js";

/** A supported image format. */
export interface ImageFormat {
  name: "png" | "jpeg" | "gif" | "webp";
  mimeType: string;
}

const FORMATS: Record<ImageFormat["name"], ImageFormat> = {
  png: { name: "png", mimeType: "image/png" },
  jpeg: { name: "jpeg", mimeType: "image/jpeg" },
  gif: { name: "gif", mimeType: "image/gif" },
  webp: { name: "webp", mimeType: "image/webp" },
};

const EXTENSIONS: Record<string, ImageFormat> = {
  png: FORMATS.png,
  jpg: FORMATS.jpeg,
  jpeg: FORMATS.jpeg,
  gif: FORMATS.gif,
  webp: FORMATS.webp,
};

/** The extensions `view_image` accepts. */
export const IMAGE_EXTENSIONS = Object.keys(EXTENSIONS);

/** Format implied by a file name's extension, or undefined. */
export function formatFromExtension(fileName: string): ImageFormat | undefined {
  const dot = fileName.lastIndexOf(".");
  return dot < 0 ? undefined : EXTENSIONS[fileName.slice(dot + 1).toLowerCase()];
}

/** Format implied by the first bytes of a file (12 are enough), or undefined. */
export function formatFromMagic(head: Uint8Array): ImageFormat | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return FORMATS.png;
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return FORMATS.jpeg;
  const ascii = bytes.subarray(0, 12).toString("latin1");
  if (ascii.startsWith("GIF87a") || ascii.startsWith("GIF89a")) return FORMATS.gif;
  if (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WEBP") return FORMATS.webp;
  return undefined;
}

/**
 * Checks an image's name and first bytes. Returns its format, or the failure `view_image` reports.
 */
export function checkImage(virtualPath: string, head: Uint8Array): ImageFormat | ToolFailure {
  const byName = formatFromExtension(virtualPath);
  if (!byName) {
    return toolFailure(
      `Unsupported image format: ${virtualPath}. Supported extensions: ${IMAGE_EXTENSIONS.join(", ")}.`,
    );
  }
  const byContent = formatFromMagic(head);
  if (!byContent) return toolFailure(`File contents do not match a supported image format: ${virtualPath}`);
  if (byContent.name !== byName.name) {
    return toolFailure(
      `Image contents are ${byContent.name.toUpperCase()}, but file extension indicates ${byName.name.toUpperCase()}: ${virtualPath}`,
    );
  }
  return byContent;
}
