/**
 * `@deerflow/harness/testing`: the fakes every DeerFlow.ts test builds on: a scripted chat model that
 * fails loudly on an unexpected call, a fake OpenAI-compatible server for end-to-end client tests, a
 * temp home directory, and a stand-in web search and fetch service for the web tools. Exports are named one by one so the public surface stays deliberate.
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
export type { FakeErrorReply, FakeHangReply, FakeRawReply, FakeReply, FakeToolCall, FakeUsage } from "./openai-replies.js";
export { findToolPairingError, type ToolPairingError, type WireMessage } from "./openai-tool-pairing.js";
export { createTempHome, withTempHome, type TempHome, type TempHomeOptions } from "./temp-home.js";
export { adminDatabaseUrl, type TestDatabase, testDatabase } from "./postgres.js";
export { articleHtml, type Canary, startCanary, startWebStandIn, type WebStandIn } from "./web-stand-in.js";
