/**
 * stdout for command results. Node's stdio streams swallow their own write errors (they cannot be
 * destroyed, so the error is cleared again), so a full disk behind `> file` would go unnoticed and the
 * CLI would exit 0 with the answer lost. Writes go through here and keep the first failure.
 */

let failure: NodeJS.ErrnoException | null = null;

/** Writes `text` to stdout, remembering a failed write. */
export function writeOut(text: string): void {
  process.stdout.write(text, (error) => {
    if (error) failure ??= error as NodeJS.ErrnoException;
  });
}

/** The first failed stdout write, if any. */
export function outputFailure(): NodeJS.ErrnoException | null {
  return failure;
}
