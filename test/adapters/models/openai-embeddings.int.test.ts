/**
 * The embeddings client against the scripted OpenAI-compatible server (a real HTTP server on
 * 127.0.0.1), and the rationale analysis driven by it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIEmbeddings } from "../../../packages/models/src/models/openai-embeddings.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { AdapterError, ConfigError } from "../../../packages/core/src/errors.ts";
import { scoreRationales } from "../../../packages/evaluation/src/eval/rationale.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const noEnv = { logLevel: "warn", ci: false };

describe("OpenAI-compatible embeddings", () => {
  it("posts the texts in batches to /v1/embeddings and returns one vector per text, in order", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "embeddings",
          embeddings: [
            [1, 0],
            [0, 1],
          ],
          expect: (r) =>
            expect(r.body).toMatchObject({ model: "emb-small", input: ["a", "b"], encoding_format: "float" }),
        },
        { endpoint: "embeddings", embeddings: [[0.5, 0.5]], expect: (r) => expect(r.body.input).toEqual(["c"]) },
      ],
    });
    const emb = createOpenAIEmbeddings({
      model: "emb-small",
      baseURL: server.url,
      apiKey: "sk-test-xyz",
      batchSize: 2,
      settings: noEnv,
    });
    expect(emb.name).toBe("openai-embeddings(emb-small)");
    expect(await emb.embed(["a", "b", "c"])).toEqual([
      [1, 0],
      [0, 1],
      [0.5, 0.5],
    ]);
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/embeddings", "/v1/embeddings"]);
    server.verify();
  });

  it("rejects an answer with the wrong number of vectors or non-numbers, without leaking the key", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { endpoint: "embeddings", embeddings: [[1, 0]] },
        { endpoint: "embeddings", body: { object: "list", data: [{ index: 0, embedding: ["x"] }] } },
      ],
    });
    const emb = createOpenAIEmbeddings({
      model: "m",
      baseURL: server.url,
      apiKey: "sk-secret-123",
      maxRetries: 0,
      settings: noEnv,
    });
    await expect(emb.embed(["a", "b"])).rejects.toThrow(/1 vectors for 2 texts/);
    const err = await emb.embed(["a"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(String((err as Error).message)).toMatch(/not a list of finite numbers/);
    expect(String((err as Error).message)).not.toContain("sk-secret-123");
  });

  it("turns HTTP errors into AdapterErrors and needs a model name", async () => {
    server = await startScriptedOpenAIServer({ script: [{ endpoint: "embeddings", status: 500 }] });
    const emb = createOpenAIEmbeddings({
      model: "m",
      baseURL: server.url,
      apiKey: "k",
      maxRetries: 0,
      settings: noEnv,
    });
    await expect(emb.embed(["a"])).rejects.toBeInstanceOf(AdapterError);
    expect(() => createOpenAIEmbeddings({ model: "", baseURL: server!.url, settings: noEnv })).toThrow(ConfigError);
  });

  it("drives the rationale analysis: the best cosine to the reference decides restorative intent", async () => {
    // Texts are embedded once each, in first-seen order: reference 1, its rationales, reference 2, ...
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "embeddings",
          embeddings: [
            [1, 0, 0],
            [0.9, 0.1, 0],
            [0, 1, 0],
            [0, 0, 1],
          ],
        },
      ],
    });
    const emb = createOpenAIEmbeddings({ model: "m", baseURL: server.url, apiKey: "k", settings: noEnv });
    const scores = await scoreRationales(
      [
        { reference: "undo the typing", rationales: ["restore: undo typing", "continue: click OK"] },
        { reference: "undo the typing", rationales: ["continue: open menu", undefined] },
        { reference: "undo the typing", rationales: [] },
      ],
      { kind: "embedding", embedder: emb },
    );
    expect(server.requests[0].body.input).toEqual([
      "undo the typing",
      "restore: undo typing",
      "continue: click OK",
      "continue: open menu",
    ]);
    expect(scores[0]).toMatchObject({ method: "openai-embeddings(m)", restorative: true, threshold: 0.5 });
    expect(scores[0].maxSimilarity).toBeCloseTo(0.9 / Math.sqrt(0.82), 5);
    expect(scores[1]).toMatchObject({ maxSimilarity: 0, restorative: false });
    expect(scores[2]).toMatchObject({ maxSimilarity: null, restorative: null });
    server.verify();
  });
});
