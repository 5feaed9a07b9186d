/**
 * `retrace/testing`: helpers for users' own tests (scripted model server, fakes that record
 * and fail loudly). Filled in by the modules that provide them.
 */
export { startScriptedOpenAIServer } from "../adapters/testing/scripted-openai-server.ts";
export type { ScriptedOpenAIServer, ScriptedOpenAIServerOptions, ScriptStep, ScriptedUsage, ScriptedEndpoint, RecordedRequest, ReceivedImage } from "../adapters/testing/scripted-openai-server.ts";
