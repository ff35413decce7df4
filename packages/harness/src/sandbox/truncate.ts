/**
 * Output limits. A tool result is read by the model, so a runaway `find /` or a 50 MB log must come
 * back as a bounded text that still says how much was left out and where, never as the whole thing.
 */

/** Middle marker DeerFlow's `bash` uses: the start and the end of the output are usually what matters. */
export function middleMarker(skipped: number): string {
  return `\n... [middle truncated: ${skipped} chars skipped] ...\n`;
}

/**
 * Keeps the first and last halves of `text` within `maxChars` and puts the middle marker between
 * them. `maxChars <= 0` means no limit.
 */
export function middleTruncate(text: string, maxChars: number): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  const head = Math.ceil(maxChars / 2);
  const tail = Math.floor(maxChars / 2);
  return text.slice(0, head) + middleMarker(text.length - head - tail) + (tail > 0 ? text.slice(-tail) : "");
}

/**
 * Keeps the first `maxChars` of `text` and appends a marker naming how much was shown and a hint for
 * narrowing the request. `maxChars <= 0` means no limit.
 */
export function headTruncate(text: string, maxChars: number, hint: string): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n... [truncated: showing first ${maxChars} of ${text.length} chars. ${hint}] ...`;
}

/**
 * A text sink for streamed process output that holds at most about `3 * maxChars` characters however
 * much arrives, so a command printing gigabytes costs constant memory. `render()` gives the same
 * result as `middleTruncate(allText, maxChars)` would.
 */
export class CappedText {
  private head = "";
  private tail = "";
  private total = 0;

  constructor(private readonly maxChars: number) {}

  /** Characters received so far. */
  get length(): number {
    return this.total;
  }

  append(chunk: string): void {
    if (chunk === "") return;
    this.total += chunk.length;
    const room = this.maxChars - this.head.length;
    if (room > 0) {
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
      if (chunk === "") return;
    }
    this.tail += chunk;
    if (this.tail.length > 2 * this.maxChars) this.tail = this.tail.slice(-this.maxChars);
  }

  /** The received text, middle-truncated to `maxChars` with the marker when it did not fit. */
  render(): string {
    if (this.total <= this.maxChars) return this.head + this.tail;
    const headKeep = Math.ceil(this.maxChars / 2);
    const tailKeep = Math.floor(this.maxChars / 2);
    const tail = tailKeep > 0 ? (this.head + this.tail).slice(-tailKeep) : "";
    return this.head.slice(0, headKeep) + middleMarker(this.total - headKeep - tailKeep) + tail;
  }
}
