/**
 * `@deerflow/harness/testing`: the one test kit every DeerFlow.ts test builds on: a scripted chat model
 * that fails loudly on an unexpected call, fake provider servers (OpenAI-compatible, Anthropic, Ollama)
 * that deliver bodies in pieces as a network does, for end-to-end client tests,
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
} from "./fake-openai-server.js";
export {
  startFakeAnthropicServer,
  type AnthropicRequest,
  type FakeAnthropicServer,
  type FakeAnthropicServerOptions,
} from "./fake-anthropic-server.js";
export {
  startFakeOllamaServer,
  type FakeOllamaServer,
  type FakeOllamaServerOptions,
  type OllamaChatRequest,
} from "./fake-ollama-server.js";
export type {
  FakeDialect,
  FakeProviderServer,
  FakeProviderServerOptions,
  FakeResponse,
  FakeServerIncident,
} from "./fake-provider-server.js";
export type {
  FakeErrorReply,
  FakeHangReply,
  FakeRawReply,
  FakeReply,
  FakeStep,
  FakeToolCall,
  FakeUsage,
} from "./fake-script.js";
export { longAnswers } from "./long-answers.js";
export { cutPoints, type FakeDelivery, type FakeDeliveryOption } from "./network-delivery.js";
export { findToolPairingError, type ToolPairingError, type WireMessage } from "./openai-tool-pairing.js";
export {
  createTempHome,
  tempHome,
  withTempHome,
  type TempHome,
  type TempHomeOptions,
  type TestContextLike,
} from "./temp-home.js";
export {
  adminDatabaseUrl,
  DATABASE_RUN_VARIABLE,
  dropRunDatabases,
  type TestDatabase,
  testDatabase,
} from "./postgres.js";
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
export {
  startTelegramStandIn,
  type TelegramSentDocument,
  type TelegramSentMessage,
  type TelegramStandIn,
  type TelegramStandInOptions,
  type TelegramTestUser,
} from "./telegram-stand-in.js";
export {
  slackSignatureHeaders,
  startSlackStandIn,
  type SlackPostedMessage,
  type SlackStandIn,
  type SlackStandInOptions,
  type SlackUploadedFile,
} from "./slack-stand-in.js";
