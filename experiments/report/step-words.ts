/**
 * Words the viewer uses for steps and restorations, shared by the events, the step panel and the
 * context after a cut: a forward step named by both numbers (the viewer's position in the episode
 * and the forward-history index the models were shown and quote), and a restoration's ending in
 * the one confirmation vocabulary.
 */

/**
 * How a restoration ended, in the one vocabulary (RestorationConfirmation: verifier, ssim,
 * claimed, refused) from a recovery-end detail; a record without `confirmation` (older runs)
 * says so instead of claiming a confirmation nothing made.
 */
export function confirmationWords(d: { confirmation?: unknown; restored?: unknown } | undefined): string {
  switch (d?.confirmation) {
    case "verifier":
      return "restored state confirmed by the verifier";
    case "ssim":
      return "restored state confirmed by SSIM >= 0.99 to the target";
    case "claimed":
      return "restoration claimed by the recovery agent, unverified";
    case "refused":
      return "restoration not confirmed";
    default:
      return d?.restored === true ? "restored (confirmation not recorded)" : "restoration not confirmed";
  }
}

/**
 * "step 7 (the models' step 4)": a forward step by the viewer's number and the forward-history
 * index the models were shown and quote (the paper's numbering; it restarts after a history cut).
 */
export function bothNumbers(n: number, t: number): string {
  return n === t ? `step ${n} (the models' step ${t} too)` : `step ${n} (the models' step ${t})`;
}
