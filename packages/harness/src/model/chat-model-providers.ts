/**
 * The provider SDKs behind `use: openai`, `anthropic` and `ollama`, loaded when a config names them
 * rather than with the harness. Each brings its SDK (OpenAI's client is about 230 modules, Anthropic's
 * about 150): every `deerflow` process, and every test that imports the harness, paid for all three,
 * model or not (docs/benchmarks.md, "The test suite").
 *
 * They load with `import()`: a synchronous `require` would load the CommonJS copy of @langchain/core
 * beside the ES module one and break its `instanceof` checks. So building a model stays synchronous
 * (createChatModel), and whoever builds models awaits {@link loadChatModelProviders} for the entries it
 * may build first (createHarness does, for the whole config).
 */
import type { ModelEntry, ModelProvider } from "../config/schema.js";

const LOADERS = {
  openai: () => import("./finish-reason-completions.js"),
  anthropic: () => import("@langchain/anthropic"),
  ollama: () => import("@langchain/ollama"),
};

type SdkProvider = keyof typeof LOADERS;
type ProviderModules = { [P in SdkProvider]: Awaited<ReturnType<(typeof LOADERS)[P]>> };

const loaded: Partial<ProviderModules> = {};

const needsSdk = (use: ModelProvider): use is SdkProvider => use in LOADERS;

/**
 * Loads the SDKs the entries use (each once per process).
 *
 * @example
 * await loadChatModelProviders(config.models);
 * const model = createChatModel(config.models[0]);
 */
export async function loadChatModelProviders(entries: Iterable<Pick<ModelEntry, "use">>): Promise<void> {
  const uses = new Set([...entries].map((entry) => entry.use).filter(needsSdk));
  await Promise.all([...uses].map(load));
}

async function load<P extends SdkProvider>(use: P): Promise<void> {
  loaded[use] ??= (await LOADERS[use]()) as ProviderModules[P];
}

/** A provider's SDK, loaded earlier by {@link loadChatModelProviders}. */
export function providerSdk<P extends SdkProvider>(use: P): ProviderModules[P] {
  const sdk = loaded[use];
  if (!sdk)
    throw new Error(
      `The ${use} model SDK is not loaded: await loadChatModelProviders(entries) before createChatModel (createHarness does).`,
    );
  return sdk as ProviderModules[P];
}
