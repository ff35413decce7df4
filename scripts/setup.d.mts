// Types for scripts/setup.mjs, for the TypeScript that imports it (bench/).
export const root: string;
export function ensureInstalled(log?: (line: string) => void, options?: { deferNative?: boolean }): Promise<void>;
export function ensureReleaseNative(log?: (line: string) => void): void;
export function ensureBuilt(log?: (line: string) => void): void;
export function ensureWebBuilt(log?: (line: string) => void): void;
export function ensureBuiltConcurrently(log?: (line: string) => void): Promise<void>;
