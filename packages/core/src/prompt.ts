/**
 * Prompt templates: one per file in `packages/core/src/prompts/`, each `{ id, version, variables, template }`.
 * `renderPrompt` throws on a missing or an unused variable; `promptRef` is what traces record.
 */
import { ConfigError } from "./errors.ts";

export interface PromptTemplate<V extends string = string> {
  id: string;
  version: string;
  /** Which node uses it, for readers. */
  usedBy: string;
  variables: readonly V[];
  /** Text with `{{name}}` placeholders. */
  template: string;
}

/** Declare a prompt (identity function that checks placeholders match `variables`). */
export function definePrompt<const V extends string>(p: PromptTemplate<V>): PromptTemplate<V> {
  const used = new Set([...p.template.matchAll(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g)].map((m) => m[1]));
  for (const v of p.variables)
    if (!used.has(v))
      throw new ConfigError(`prompt ${p.id}: variable "${v}" is declared but never used in the template`);
  for (const u of used)
    if (!(p.variables as readonly string[]).includes(u))
      throw new ConfigError(`prompt ${p.id}: placeholder {{${u}}} is not declared in variables`);
  return p;
}

/** `id@version`, recorded with every model call. */
export function promptRef(p: Pick<PromptTemplate, "id" | "version">): string {
  return `${p.id}@${p.version}`;
}

/** Fill every placeholder; throws a ConfigError on a missing or an unused variable. */
export function renderPrompt<V extends string>(p: PromptTemplate<V>, values: Record<V, string | number>): string {
  for (const v of p.variables)
    if (!(v in values)) throw new ConfigError(`prompt ${promptRef(p)}: missing variable "${v}"`);
  for (const k of Object.keys(values))
    if (!(p.variables as readonly string[]).includes(k))
      throw new ConfigError(`prompt ${promptRef(p)}: unused variable "${k}"`);
  return p.template.replace(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g, (_, name: string) => String(values[name as V]));
}
