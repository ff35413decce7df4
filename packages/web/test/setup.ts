// Runs after every test of every file. The files run one after another in one process and one jsdom
// (vite.config.ts: `singleFork`), so a test leaves no rendered tree behind for the next file's queries.
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => {
  cleanup();
});
