/**
 * The race's answer for people: the winner as config YAML and as `withRecovery` options, and a
 * console summary that says what was decided and with what confidence.
 */
import { stringify as toYaml } from "yaml";
import { objectiveText } from "@retrace-cua/evaluation/tune/objective";
import { eliminationText, type RaceResult } from "@retrace-cua/evaluation/tune/race-result";
import { settingText, type KnobValue } from "@retrace-cua/evaluation/tune/space";
import type { TuneConfig } from "./config.ts";

/** The winner as a tune-free config: the base with the winning setting applied (pair knobs in the pair). */
export function winnerYaml(config: TuneConfig, setting: Record<string, KnobValue>): string {
  const raw = structuredClone(config.base) as Record<string, unknown>;
  const pair = (raw.pairs as Array<Record<string, unknown>>)[0];
  for (const [path, v] of Object.entries(setting)) {
    if (path === "maxRecoveryIterations") raw.maxRecoveryIterations = [v];
    else
      setIn(
        path.startsWith("pair.") ? pair : raw,
        path.startsWith("pair.") ? path.slice(5).split(".") : path.split("."),
        v,
      );
  }
  raw.baseline = true;
  return `# winner of the race ${config.name}: ${settingText(setting)}\n# run it against its baseline: retrace run winner.yaml\n${toYaml(raw)}`;
}

/**
 * The winner's recovery options as a `withRecovery(policy, { ... })` snippet (knobs that are not recovery options are
 * listed as comments).
 */
export function winnerSnippet(config: TuneConfig, setting: Record<string, KnobValue>): string {
  const base = (config.base.options ?? {}) as Record<string, unknown>;
  const options: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) if (k !== "settleMs") options[k] = v;
  const other: string[] = [];
  for (const [path, v] of Object.entries(setting)) {
    if (path === "maxRecoveryIterations") options.maxRecoveryIterations = v;
    else if (path.startsWith("options.")) options[path.slice(8)] = v;
    else other.push(`// ${path}: ${JSON.stringify(v)} (set it on the component it names)`);
  }
  if (!("maxRecoveryIterations" in options))
    options.maxRecoveryIterations = (config.base.maxRecoveryIterations as number[])[0];
  const body = Object.entries(options)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)},`)
    .join("\n");
  return `// winner of the race ${config.name}: ${settingText(setting)}\nimport { withRecovery } from "retrace-cua";\n\nexport const agent = withRecovery(myPolicy, {\n  detector, recoverer,\n${body}\n});\n${other.length ? other.join("\n") + "\n" : ""}`;
}

/** The console summary: the decision in words, then one line per candidate. */
export function summaryText(r: RaceResult, costUnit: string, kind?: string): string {
  const priced = r.candidates.some((c) => c.cost.mean > 0);
  const rows = [...r.candidates].sort(
    (a, b) => (a.eliminated ? 1 : 0) - (b.eliminated ? 1 : 0) || b.success.rate - a.success.rate,
  );
  const lines = [
    `objective: ${objectiveText(r, costUnit, kind)}`,
    `decision: ${r.decision}`,
    `episodes: ${r.episodes} (a grid of the ${r.candidates.length} candidates at the same confidence: ${r.gridEpisodes}; ${(r.episodes / Math.max(1, r.gridEpisodes)).toFixed(2)} of it); space: ${r.spaceSize} candidate(s)`,
    ...rows.map((c) => {
      const e = c.eliminated;
      const fate = !e
        ? r.survivors.includes(c.id)
          ? c.id === r.winner
            ? "WINNER"
            : "survivor"
          : ""
        : eliminationText(e);
      return `  ${c.id.padEnd(5)} ${settingText(c.setting).padEnd(60)} ${(100 * c.success.rate).toFixed(0).padStart(3)}% [${(100 * c.success.lo).toFixed(0)}-${(100 * c.success.hi).toFixed(0)}] n=${c.success.n}  ${priced ? `${costUnit === "usd" ? "$" : "tokens "}${c.cost.mean.toFixed(costUnit === "usd" ? 4 : 0)}/episode` : "cost n/a"}  ${fate}`;
    }),
  ];
  return lines.join("\n");
}

function setIn(target: Record<string, unknown>, parts: string[], v: KnobValue): void {
  let at = target;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
  at[parts[parts.length - 1]] = v;
}
