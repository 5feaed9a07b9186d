/**
 * Human labels for the report: condition ids and parameters in words ("freeze window 0, max recovery
 * iterations 3" instead of `freezeWindow=0,maxRecoveryIterations=3`; one display name per condition, used by
 * the tables, charts, the viewer's filters and episode list, and the demo's console table), and table headers for the
 * JSON fields of
 * the recovery-evaluation files (`successCi` -> "success (95% CI)"). Every visible header goes
 * through {@link headerLabel}; the Chromium test checks that none is a raw JSON key.
 */

const PARAM_WORDS: Record<string, string> = {
  maxRecoveryIterations: "max recovery iterations",
  recoveryBudget: "recovery budget",
  freezeWindow: "freeze window",
  restoration: "restoration",
  pair: "agents",
};

const HEADER_WORDS: Record<string, string> = {
  successCi: "success (95% CI)",
  successLo: "success CI low",
  successHi: "success CI high",
  ro: "R_O passes",
  rtc: "R_TC passes",
  rom: "R_Om passes",
  roPass: "R_O passes",
  rtcPass: "R_TC passes",
  romPass: "R_Om passes",
  agreementCi: "agreement (95% CI)",
  fprCi: "false-positive rate (95% CI)",
  fnrCi: "false-negative rate (95% CI)",
  falsePositiveRate: "false-positive rate",
  falseNegativeRate: "false-negative rate",
  kappaCi: "kappa (95% CI)",
  kappa: "Cohen's kappa",
  tp: "true positives",
  fp: "false positives",
  tn: "true negatives",
  fn: "false negatives",
  truePositive: "true positives",
  falsePositive: "false positives",
  trueNegative: "true negatives",
  falseNegative: "false negatives",
  n: "n",
  r: "recovery budget r (steps)",
  d: "distance d (steps)",
  policy: "recoverer",
  variant: "variant",
  context: "context",
  restorativeIntent: "restorative intent",
  intentCi: "restorative intent (95% CI)",
  intentN: "episodes with a rationale",
  rationaleSimilarity: "rationale similarity",
  similarityIntent: "similarity intent",
  similarityIntentCi: "similarity intent (95% CI)",
  meanSteps: "mean recovery steps",
  excluded: "excluded (not judged)",
  gain: "explicit - implicit",
  implicit: "implicit success",
  explicit: "explicit success",
  trulyRecovered: "truly recovered",
  runs: "runs",
  noise: "screen noise",
  oracle: "oracle",
  agreement: "agreement",
  seedSteps: "seed steps",
  targetReproduced: "target reproduced",
  perturbed: "perturbed",
  perturbationWellFormed: "perturbation well-formed",
  genuineError: "genuine error",
  notNearIdentical: "not near-identical",
  deduplicated: "deduplicated",
  final: "final samples",
  distance: "distance d (steps)",
  stage: "stage",
  count: "count",
  budget: "recovery budget r (steps)",
  task: "task",
  winRate: "win rate",
  winRateCi: "win rate (95% CI)",
};

/** Words for a camelCase / snake_case key: "falsePositiveRate" -> "false positive rate". */
export function words(key: string): string {
  return key
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .replace(/\bci\b/g, "(95% CI)")
    .trim();
}

/** A table header for a JSON field. */
export function headerLabel(key: string): string {
  return HEADER_WORDS[key] ?? words(key);
}

/** One condition parameter in words. */
export function paramLabel(key: string, value: unknown): string {
  return `${PARAM_WORDS[key] ?? words(key)} ${String(value)}`;
}

/**
 * A condition id in words: `freezeWindow=0,maxRecoveryIterations=3` -> "freeze window 0, max
 * recovery iterations 3"; `skilled.max-rec-3` -> "skilled, max recovery iterations 3"; `no-recovery` -> "no recovery";
 * the
 * ideal-recovery strategies (`R=E-1`) stay as they are.
 */
export function conditionLabel(id: string): string {
  if (/^[a-z][A-Za-z]+=[^,]*(,[a-z][A-Za-z]+=[^,]*)*$/.test(id))
    return id
      .split(",")
      .map((kv) => {
        const i = kv.indexOf("=");
        return paramLabel(kv.slice(0, i), kv.slice(i + 1));
      })
      .join(", ");
  const m = /^(.*)\.max-rec-(\d+)$/.exec(id);
  if (m) return `${m[1]}, max recovery iterations ${m[2]}`;
  if (id === "no-recovery") return "no recovery";
  const none = /^(.*)\.no-recovery$/.exec(id);
  if (none) return `${none[1]}, no recovery`;
  return id;
}

/** `text` with every condition id of `ids` written as its display name (a recommendation names conditions by id). */
export function labelConditionsIn(text: string, ids: readonly string[]): string {
  let out = text;
  for (const id of [...ids].sort((a, b) => b.length - a.length))
    if (conditionLabel(id) !== id) out = out.split(id).join(conditionLabel(id));
  return out;
}

/**
 * The app (or domain) of a task id: OSWorld's domain when the line carries one, else the id's first word
 * ("files-rename-folder" -> "files").
 */
export function appOf(task: string, extra?: Record<string, unknown>): string {
  const domain = extra?.domain ?? (extra?.osworld as { domain?: unknown; related_apps?: unknown } | undefined)?.domain;
  if (typeof domain === "string" && domain) return domain;
  const m = /^([a-z]+)[-_]/i.exec(task);
  return m ? m[1].toLowerCase() : "other";
}
