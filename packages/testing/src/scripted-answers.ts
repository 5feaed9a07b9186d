/**
 * The JSON body a scripted step answers with, per endpoint (chat completions, Responses, Anthropic
 * messages, embeddings), with its `usage` in that API's own convention (see {@link ScriptedUsage}).
 * Used by scripted-openai-server.ts.
 */
import type { ScriptedEndpoint, ScriptedUsage, ScriptStep } from "./script-types.ts";

/** The answer to `request` (its parsed body) on `endpoint` from `step`, the `index`-th request. */
export function answerBody(
  endpoint: ScriptedEndpoint | "unknown",
  step: ScriptStep,
  request: any,
  index: number,
  defaultModel: string,
  requestBytes: number,
): unknown {
  const model = typeof request?.model === "string" ? request.model : defaultModel;
  const text = step.text ?? "";
  const usage =
    step.usage === null
      ? undefined
      : (step.usage ?? {
          inputTokens: Math.ceil(requestBytes / 4),
          outputTokens: Math.max(
            1,
            Math.ceil((text.length + JSON.stringify(step.output ?? step.content ?? "").length) / 4),
          ),
        });
  if (endpoint === "responses") {
    const output: unknown[] = [];
    if (step.text !== undefined)
      output.push({
        type: "message",
        id: `msg_${index}`,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text, annotations: [] }],
      });
    output.push(...(step.output ?? []));
    return {
      id: `resp_scripted_${index}`,
      object: "response",
      created_at: 0,
      status: "completed",
      model,
      output,
      parallel_tool_calls: false,
      tool_choice: "auto",
      tools: [],
      error: null,
      incomplete_details: null,
      ...(usage && {
        usage: {
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
          input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
          output_tokens_details: { reasoning_tokens: 0 },
        },
      }),
    };
  }
  if (endpoint === "embeddings") {
    const base64 = request?.encoding_format === "base64";
    const inputs: string[] = Array.isArray(request?.input)
      ? request.input.map(String)
      : typeof request?.input === "string"
        ? [request.input]
        : [];
    const vectors = typeof step.embeddings === "function" ? step.embeddings(inputs) : (step.embeddings ?? []);
    const data = vectors.map((v, i) => ({
      object: "embedding",
      index: i,
      embedding: base64 ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v,
    }));
    const tokens = usage?.inputTokens ?? 0;
    return { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  }
  if (endpoint === "messages") {
    const content = [...(step.text !== undefined ? [{ type: "text", text }] : []), ...(step.content ?? [])];
    const toolUse = content.some((c: any) => c?.type === "tool_use");
    return {
      id: `msg_scripted_${index}`,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: toolUse ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: usage
        ? {
            input_tokens: usage.inputTokens,
            output_tokens: usage.outputTokens,
            cache_read_input_tokens: usage.cachedInputTokens ?? 0,
            cache_creation_input_tokens: usage.cacheWriteInputTokens ?? 0,
          }
        : { input_tokens: 0, output_tokens: 0 },
    };
  }
  return {
    id: `chatcmpl-scripted-${index}`,
    object: "chat.completion",
    created: 0,
    model,
    choices: [
      { index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop", logprobs: null },
    ],
    ...(usage && { usage: chatUsage(usage) }),
  };
}

/** A chat-completions `usage` object in OpenAI's or vLLM's shape. */
function chatUsage(usage: ScriptedUsage): Record<string, unknown> {
  const base = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
  if (usage.style === "vllm")
    return {
      ...base,
      prompt_tokens_details: usage.cachedInputTokens !== undefined ? { cached_tokens: usage.cachedInputTokens } : null,
    };
  return {
    ...base,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}
