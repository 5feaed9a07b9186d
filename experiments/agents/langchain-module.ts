/**
 * `backend: langchain`: a model agent whose chat model is any LangChain chat model, loaded from a
 * module the operator writes (`module: ./my-model.mjs`, `export: default`). The module path is
 * resolved against the current working directory (absolute paths as given); the export is a
 * LangChain chat model instance, or a factory `(options) => model | Promise<model>` that receives
 * the spec's model, baseUrl, apiKey, temperature, maxTokens, timeoutMs and maxRetries. The runner
 * loads every such module before the first episode ({@link checkLangChainModules}), so a missing
 * file or a wrong export stops the run with one line naming the field.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel, ChatRequest, ChatResponse } from "@retrace-cua/core/model";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import { createLangChainChatModel } from "@retrace-cua/models/models/langchain-chat";
import type { ParameterizedChatModel } from "@retrace-cua/models/models/openai-chat";
import { maxTokensOf, type ModelAgentSpec } from "./model-spec.ts";

/** What a factory export receives (from the spec, after --model/--base-url filled it). */
export interface LangChainFactoryOptions {
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  timeoutMs: number;
  maxRetries: number;
}

const loaded = new Map<string, Promise<BaseChatModel>>();

/** The absolute file a spec's `module` names (resolved against the current working directory). */
export function langChainModulePath(spec: Pick<ModelAgentSpec, "module">): string {
  return resolve(process.cwd(), spec.module ?? "");
}

function isChatModel(x: unknown): x is BaseChatModel {
  return (
    !!x &&
    typeof x === "object" &&
    typeof (x as { invoke?: unknown }).invoke === "function" &&
    typeof (x as { _llmType?: unknown })._llmType === "function"
  );
}

/**
 * Load (once per module, export and options) the LangChain chat model of a spec. `field` prefixes
 * error fields, e.g. `config.pairs.0.detector`.
 */
export function loadLangChainChatModel(
  spec: ModelAgentSpec,
  apiKey: string | undefined,
  field = "spec",
): Promise<BaseChatModel> {
  if (!spec.module)
    return Promise.reject(
      new ConfigError(
        `${field}.module: backend langchain needs module: the path of a .mjs/.js/.ts file exporting a LangChain chat model or a factory`,
        { field: `${field}.module` },
      ),
    );
  const file = langChainModulePath(spec);
  const name = spec.export ?? "default";
  const options: LangChainFactoryOptions = {
    model: spec.model,
    baseUrl: spec.baseUrl,
    apiKey,
    temperature: spec.temperature,
    maxTokens: maxTokensOf(spec),
    timeoutMs: spec.timeoutMs,
    maxRetries: spec.maxRetries,
  };
  const key = JSON.stringify([file, name, options]);
  let p = loaded.get(key);
  if (!p) {
    p = (async () => {
      if (!existsSync(file))
        throw new ConfigError(
          `${field}.module: ${file} does not exist (module paths are resolved against the current directory ${process.cwd()})`,
          { field: `${field}.module` },
        );
      let mod: Record<string, unknown>;
      try {
        mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      } catch (err) {
        throw new ConfigError(
          `${field}.module: cannot load ${file}: ${String((err as Error).message ?? err).split("\n")[0]}`,
          { field: `${field}.module` },
        );
      }
      if (!(name in mod))
        throw new ConfigError(
          `${field}.export: ${file} has no export named ${JSON.stringify(name)} (it exports ${
            Object.keys(mod)
              .map((k) => JSON.stringify(k))
              .join(", ") || "nothing"
          })`,
          { field: `${field}.export` },
        );
      const value = mod[name];
      if (isChatModel(value)) return value;
      if (typeof value !== "function")
        throw new ConfigError(
          `${field}.export: ${JSON.stringify(name)} of ${file} is neither a LangChain chat model nor a factory returning one`,
          { field: `${field}.export` },
        );
      let made: unknown;
      try {
        made = await (value as (o: LangChainFactoryOptions) => unknown)(options);
      } catch (err) {
        throw new ConfigError(
          `${field}.export: the factory ${JSON.stringify(name)} of ${file} threw: ${String((err as Error).message ?? err).split("\n")[0]}`,
          { field: `${field}.export` },
        );
      }
      if (!isChatModel(made))
        throw new ConfigError(
          `${field}.export: the factory ${JSON.stringify(name)} of ${file} did not return a LangChain chat model (an object with invoke and _llmType)`,
          { field: `${field}.export` },
        );
      return made;
    })();
    p.catch(() => loaded.delete(key));
    loaded.set(key, p);
  }
  return p;
}

/**
 * A retrace ChatModel over the spec's LangChain chat model, loading the module on first use (the
 * runner has already loaded and checked it). Its name is the spec's `model`, else `langchain`.
 */
export function langChainChatModelFor(
  spec: ModelAgentSpec,
  blobs: BlobReader,
  apiKey: string | undefined,
): ParameterizedChatModel {
  const model = spec.model ?? "langchain";
  let inner: Promise<ChatModel> | undefined;
  const get = () =>
    (inner ??= loadLangChainChatModel(spec, apiKey).then((chatModel) =>
      createLangChainChatModel({
        chatModel,
        blobs,
        modelName: model,
        timeoutMs: spec.timeoutMs,
        maxRetries: spec.maxRetries,
        prices: spec.prices,
        secrets: apiKey ? [apiKey] : [],
        sendSeed: spec.sendSeed !== false,
      }),
    ));
  return {
    model,
    requestParams: {
      backend: "langchain",
      module: spec.module,
      export: spec.export ?? "default",
      ...(spec.sendSeed === false && { sendSeed: false }),
    },
    async complete(request: ChatRequest): Promise<ChatResponse> {
      return (await get()).complete(request);
    },
  };
}
