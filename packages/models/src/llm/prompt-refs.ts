/** Helpers for recording which prompts a model call was built from. */
import { promptRef, type PromptTemplate } from "@retrace-cua/core/prompt";

/**
 * `id@version` of every prompt a call combines, joined with `+`
 * (e.g. `error-detector.system@1+error-detector.user@1`).
 */
export function joinPromptRefs(...prompts: ReadonlyArray<Pick<PromptTemplate, "id" | "version">>): string {
  return prompts.map(promptRef).join("+");
}
