/**
 * An answer that grows in a chat: the first text is sent as a message, later text replaces it by edits,
 * at most one edit per `intervalMs` (each platform limits how often a message may change), and the
 * final text always arrives: `finish` waits out the interval, then sends what the answer ended as.
 * Text longer than the platform's message limit is cut while streaming and split into several
 * messages at the end.
 */

/** How one platform sends and edits a message. */
export interface MessageSink {
  /** Sends a new message; returns its id (Telegram message_id, Slack ts). */
  send(text: string): Promise<string>;
  edit(id: string, text: string): Promise<void>;
  /** Longest text one message may hold. */
  maxLength: number;
}

/** Shown while the answer has no text yet (platforms refuse empty messages). */
const THINKING = "…";

/** Cuts `text` into pieces of at most `max` characters, at a line break when one is near the end. */
export function splitMessage(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const lineBreak = rest.lastIndexOf("\n", max);
    const cut = lineBreak > max / 2 ? lineBreak : max;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, "");
  }
  pieces.push(rest);
  return pieces;
}

/** A streamed answer in one chat. */
export class LiveMessage {
  private latest = "";
  private shown: string | undefined;
  private id: string | undefined;
  private lastSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: MessageSink,
    private readonly intervalMs: number,
    private readonly log: (line: string) => void,
  ) {}

  /** The answer so far; shown at the next allowed edit. */
  update(text: string): void {
    this.latest = text;
    if (this.timer) return;
    const wait = Math.max(0, this.lastSentAt + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.chain = this.chain.then(() => this.show(this.preview(this.latest)).catch((error) => this.failed(error)));
    }, wait);
  }

  /** Sends the final text (split when too long), after any edit in flight and the interval. */
  async finish(text: string): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
    const [first, ...more] = splitMessage(text.trim() || THINKING, this.sink.maxLength);
    await this.withRetry(() => this.show(first!));
    for (const piece of more) await this.withRetry(() => this.sink.send(piece));
  }

  private preview(text: string): string {
    const max = this.sink.maxLength;
    if (!text.trim()) return THINKING;
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  }

  private async show(text: string): Promise<void> {
    if (text === this.shown) return;
    await sleep(this.lastSentAt + this.intervalMs - Date.now());
    this.lastSentAt = Date.now();
    if (this.id === undefined) this.id = await this.sink.send(text);
    else await this.sink.edit(this.id, text);
    this.shown = text;
  }

  /** A platform that refused (rate limit, network) gets two more tries, an interval apart. */
  private async withRetry(action: () => Promise<unknown>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await action();
        return;
      } catch (error) {
        if (attempt === 3) return this.failed(error);
        await sleep(this.intervalMs * attempt);
      }
    }
  }

  private failed(error: unknown): void {
    this.log(`channels: could not update a message: ${(error as Error).message}`);
  }
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)).then(() => undefined) : Promise.resolve();
}
