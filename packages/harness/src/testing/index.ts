/**
 * `@deerflow/harness/testing`: the one test kit every DeerFlow.ts test builds on: a scripted chat model
 * that fails loudly on an unexpected call, a fake OpenAI-compatible server for end-to-end client tests,
 * temp homes and scratch directories that clean themselves up, a sandbox with its tools in a temp home,
 * and a fresh Postgres database. Exports are named one by one so the public surface stays deliberate.
 * docs/testing.md shows which helper fits which test.
 */
export {
  ScriptedChatModel,
  type ScriptedCall,
  type ScriptedChatModelCallOptions,
  type ScriptedChatModelOptions,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptStep,
  type ScriptStepFunction,
} from "./scripted-model.js";
export {
  fakeRequestTokens,
  startFakeOpenAIServer,
  type ChatCompletionRequest,
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  type FakeServerIncident,
  type FakeStep,
} from "./fake-openai-server.js";
export type {
  FakeErrorReply,
  FakeHangReply,
  FakeRawReply,
  FakeReply,
  FakeToolCall,
  FakeUsage,
} from "./openai-replies.js";
export { findToolPairingError, type ToolPairingError, type WireMessage } from "./openai-tool-pairing.js";
export {
  createTempHome,
  tempHome,
  withTempHome,
  type TempHome,
  type TempHomeOptions,
  type TestContextLike,
} from "./temp-home.js";
export { adminDatabaseUrl, type TestDatabase, testDatabase } from "./postgres.js";
export {
  bwrapUnavailableReason,
  createTestSandbox,
  resultText,
  type TestSandbox,
  type TestSandboxOptions,
} from "./sandbox.js";
export { articleHtml, startCanary, startWebStandIn, type Canary, type WebStandIn } from "./web-stand-in.js";
export { spawnServe, type ServeProcess, type SpawnServeOptions } from "./serve-process.js";
export { fakeModelConfig } from "./config-yaml.js";
export { type ArchiveEntry, skillMd, writeArchive } from "./skill-archives.js";
