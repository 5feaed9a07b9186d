/**
 * The screenshot part of a tool result, per installed ai major: ai 7's file part (its "image-data"
 * part warns AISDK_DEP_TOOL_RESULT_IMAGE_DATA), ai 6's image-data part (ai 6 has no other). The
 * consumer test (test/consumer) runs the wrappers on ai 6 and ai 7 and fails on any AI SDK warning.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { installedAiMajor, toolResultImage } from "../../../packages/ai-sdk/src/tool-result-image.ts";

describe("toolResultImage", () => {
  it("gives ai 7 the file part with tagged data and ai 6 the image-data part", () => {
    expect(toolResultImage("iVBORw0K", 7)).toEqual({
      type: "file",
      data: { type: "data", data: "iVBORw0K" },
      mediaType: "image/png",
    });
    expect(toolResultImage("iVBORw0K", 8)).toMatchObject({ type: "file" });
    expect(toolResultImage("iVBORw0K", 6)).toEqual({ type: "image-data", data: "iVBORw0K", mediaType: "image/png" });
  });

  it("reads the major of the ai package it resolves", () => {
    const { version } = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("ai/package.json"), "utf8")) as {
      version: string;
    };
    expect(installedAiMajor()).toBe(Number(version.split(".")[0]));
    expect(toolResultImage("x")).toEqual(toolResultImage("x", Number(version.split(".")[0])));
  });
});
