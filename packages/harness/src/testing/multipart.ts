/**
 * A small multipart/form-data reader for the platform stand-ins. Clients differ in how strictly they
 * follow the format (grammY's bodies are refused by undici's own parser), so this reads the parts
 * leniently: split at the boundary, headers up to the first blank line, the rest is the part's bytes.
 */

/** One part of a multipart body. */
export interface MultipartPart {
  name: string;
  /** Set for a file part. */
  filename?: string;
  data: Buffer;
}

/** The parts of a multipart body whose Content-Type is `type`. */
export function readMultipart(body: Buffer, type: string): MultipartPart[] {
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!boundary) throw new Error(`No boundary in the content type "${type}".`);
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const from = start + delimiter.length;
    const end = body.indexOf(delimiter, from);
    if (end === -1) break;
    const part = partOf(body.subarray(from, end));
    if (part) parts.push(part);
    start = end;
  }
  return parts;
}

function partOf(raw: Buffer): MultipartPart | undefined {
  const headerEnd = raw.indexOf("\r\n\r\n");
  if (headerEnd === -1) return undefined;
  const headers = raw.subarray(0, headerEnd).toString("utf8");
  const name = /[;:\s]name="([^"]*)"/i.exec(headers)?.[1];
  if (name === undefined) return undefined;
  // Quoted as the format says, or bare as grammY writes it.
  const file = /filename=(?:"([^"]*)"|([^;\r\n]+))/i.exec(headers);
  const filename = file ? (file[1] ?? file[2]) : undefined;
  let data = raw.subarray(headerEnd + 4);
  if (data.subarray(-2).toString() === "\r\n") data = data.subarray(0, -2);
  return { name, ...(filename === undefined ? {} : { filename }), data };
}
