import { describe, expect, it } from "vitest";
import { ALL_PROMPTS, PROMPTS } from "../../packages/core/src/prompts/index.ts";

const { postRestorationTransition, recoverySystemPrefix } = PROMPTS;
import { promptRef, renderPrompt } from "../../packages/core/src/prompt.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const promptsDir = fileURLToPath(new URL("../../packages/core/src/prompts/", import.meta.url));

describe("prompts", () => {
  it("lists every prompt file in ALL_PROMPTS", () => {
    const files = readdirSync(promptsDir).filter((f) => f.endsWith(".ts") && f !== "index.ts");
    expect(ALL_PROMPTS.length).toBe(files.length);
  });

  it("have unique ids, a version and a usedBy note", () => {
    const ids = ALL_PROMPTS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of ALL_PROMPTS) {
      expect(p.version, p.id).toMatch(/^\d+(\.\d+)*$/);
      expect(p.usedBy.length, p.id).toBeGreaterThan(3);
      expect(promptRef(p)).toBe(`${p.id}@${p.version}`);
    }
  });

  it("render with their declared variables and leave no placeholder behind", () => {
    for (const p of ALL_PROMPTS) {
      const values = Object.fromEntries(p.variables.map((v) => [v, `<${v}-value>`]));
      const text = renderPrompt(p, values);
      expect(text, p.id).not.toMatch(/\{\{/);
      for (const v of p.variables) expect(text, `${p.id}:${v}`).toContain(`<${v}-value>`);
    }
  });

  it("refuse to render with a missing or an extra variable", () => {
    expect(() => renderPrompt(postRestorationTransition, {} as never)).toThrow(ConfigError);
    expect(() => renderPrompt(recoverySystemPrefix, { restored_token: "RESTORED", extra: 1 } as never)).toThrow(
      /unused variable "extra"/,
    );
  });

  it("tell the forward agent which step was restored", () => {
    expect(renderPrompt(postRestorationTransition, { step: 3 })).toMatch(/recovered[\s\S]*step 3/);
  });
});
