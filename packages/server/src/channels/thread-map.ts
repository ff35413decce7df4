/**
 * Which thread each chat continues: `{home}/channels/threads.json`, a map from `telegram:<chat id>` or
 * `slack:<channel id>` to a thread id. `/new` points a chat at a fresh id. Writes go one at a time
 * through a temp file and a rename, so a crash leaves the old map or the new one, never half of one.
 */
import fs from "node:fs";
import path from "node:path";

/** The persisted chat → thread map. */
export class ThreadMap {
  private readonly file: string;
  private entries: Record<string, string> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(home: string) {
    this.file = path.join(home, "channels", "threads.json");
  }

  /** The thread of a chat, if it has one. */
  async get(chat: string): Promise<string | undefined> {
    return (await this.load())[chat];
  }

  /** Points a chat at a thread. */
  async set(chat: string, threadId: string): Promise<void> {
    const entries = await this.load();
    entries[chat] = threadId;
    const text = `${JSON.stringify(entries, null, 2)}\n`;
    this.writing = this.writing.then(() => this.write(text));
    await this.writing;
  }

  private async load(): Promise<Record<string, string>> {
    if (this.entries) return this.entries;
    try {
      const parsed: unknown = JSON.parse(await fs.promises.readFile(this.file, "utf8"));
      this.entries =
        parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        throw new Error(
          `${this.file} could not be read (${(error as Error).message}). Fix or delete it; chats then start new threads.`,
        );
      this.entries = {};
    }
    return this.entries;
  }

  private async write(text: string): Promise<void> {
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    await fs.promises.writeFile(temp, text, { mode: 0o600 });
    await fs.promises.rename(temp, this.file);
  }
}
