/**
 * `--max-cost-usd` needs prices: a model agent without a price entry for its model records every
 * call at $0, so the cap would never stop the run and nothing would say so. This check refuses
 * such a run up front, naming the agent and the price entry to add.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { priceFor, type PriceTable } from "@retrace-cua/models/models/pricing";

/** An agent of a run, with the config path that names it. */
export interface CappedAgent {
  path: string;
  spec: { kind?: string; model?: string; prices?: PriceTable } | undefined;
}

/** Throw a ConfigError unless every model agent has a price for its model (and there is one). */
/** Whether any model-backed agent of the run has a price for its model (else every cost is n/a). */
export function anyPriced(agents: readonly CappedAgent[]): boolean {
  return agents.some((a) => a.spec?.kind === "model" && priceFor(a.spec.prices, a.spec.model ?? "") !== undefined);
}

export function assertPricedForCap(agents: readonly CappedAgent[], flag = "--max-cost-usd"): void {
  const models = agents.filter((a) => a.spec?.kind === "model");
  if (models.length === 0)
    throw new ConfigError(
      `${flag}: no agent of this run calls a model (they are simulated), so nothing costs money; drop ${flag}`,
      { field: "maxCostUsd" },
    );
  for (const { path, spec } of models) {
    const model = spec?.model ?? "";
    if (!priceFor(spec?.prices, model))
      throw new ConfigError(
        `${flag}: ${path} (model "${model}") has no price, so its calls would count $0 and the cap would never stop the run; add prices: { "${model}": { inputPerMillion: N, outputPerMillion: N } } to ${path}, or drop ${flag}`,
        { field: `${path}.prices` },
      );
  }
}
