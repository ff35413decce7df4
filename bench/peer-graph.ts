/**
 * The graph module the peer server (`@langchain/langgraph-api`) loads for `npm run bench -- server`:
 * our lead agent, compiled by the harness from the config file named in BENCH_PEER_CONFIG (the fake
 * OpenAI server as the model), with its home in BENCH_PEER_HOME. The peer puts its own in-memory
 * checkpointer and store on the graph before each run.
 */
import { readFileSync } from "node:fs";
import { createHarness, parseConfigText } from "@deerflow/harness";

const configFile = process.env.BENCH_PEER_CONFIG;
const home = process.env.BENCH_PEER_HOME;
if (!configFile || !home) throw new Error("bench/peer-graph.ts needs BENCH_PEER_CONFIG and BENCH_PEER_HOME set.");

const config = parseConfigText(readFileSync(configFile, "utf8"), { source: configFile, env: {} });
const harness = await createHarness(config, { home, env: {}, onWarning: () => {} });

export const graph = harness.agent().graph;
