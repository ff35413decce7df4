/** A command line that cannot be run as written (exit code 2). Kept tiny: main.ts imports it eagerly. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
