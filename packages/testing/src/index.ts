/**
 * `retrace-cua/testing`: helpers for users' own tests: the scripted OpenAI/Anthropic-compatible
 * server (fixed answers, records every request, fails loudly on an unexpected or unconsumed step).
 * Explicit named exports only. Pinned by test/public-api.test.ts.
 */
export { startScriptedOpenAIServer } from "./scripted-openai-server.ts";
export type {
  ScriptedOpenAIServer,
  ScriptedOpenAIServerOptions,
  ScriptStep,
  ScriptedUsage,
  ScriptedEndpoint,
  RecordedRequest,
  ReceivedImage,
} from "./scripted-openai-server.ts";
export { startStandInServer, STAND_IN_MODEL } from "./stand-in/server.ts";
export type { StandInServer, StandInServerOptions, StandInLogEntry } from "./stand-in/server.ts";
