/**
 * R_O against R_Om on the real X11 desktop (experiments/recovery-eval/x11-masked.ts): mousepad with
 * a blinking caret, then with a ticking panel clock and a notification pop-up on top; prints one
 * row per (setting, case) with how often each oracle said "restored" and the SSIM range. R_Om is
 * the default one (masked mean >= 0.99 and the local floor); the mean-only R_Om and the lowest local
 * masked SSIM (4 x 4 tiles of window positions) are shown beside it.
 *
 *   npx tsx --conditions=retrace-dev experiments/scripts/measure-masked-x11.ts [--trials 6]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { createX11Desktop } from "@retrace-cua/desktops/x11/create";
import { measureMaskedOracleX11 } from "../recovery-eval/x11-masked.ts";

const i = process.argv.indexOf("--trials");
const trials = i > 0 ? Number(process.argv[i + 1]) : 6;
const dir = mkdtempSync(join(tmpdir(), "retrace-masked-x11-"));
const blobs = new BlobStore({ dir: join(dir, "blobs") });
const env = createX11Desktop({ blobs });
const range = (xs: number[]) => `${Math.min(...xs).toFixed(4)}-${Math.max(...xs).toFixed(4)}`;
try {
  process.stdout.write(
    "| desktop | mask (captures, pixels) | case | truly restored | R_O says restored | R_Om says restored | R_Om (mean only) says restored | SSIM | masked SSIM | local masked SSIM (min) |\n|---|---|---|---|---|---|---|---|---|---|\n",
  );
  for (const noise of [false, true]) {
    const m = await measureMaskedOracleX11(env, blobs, { noise, trials });
    for (const c of m.cases) {
      const ro = c.trials.filter((t) => t.ro.pass).length;
      const rom = c.trials.filter((t) => t.rom.pass).length;
      const mean = c.trials.filter((t) => t.rom.meanPass).length;
      process.stdout.write(
        `| ${noise ? "caret blink + clock + pop-up" : "caret blink"} | ${m.captures}, ${(100 * m.maskFraction).toFixed(2)}% | ${c.id} | ${c.restored ? "yes" : "no"} | ${ro}/${c.trials.length} | ${rom}/${c.trials.length} | ${mean}/${c.trials.length} | ${range(c.trials.map((t) => t.ro.ssim))} | ${range(c.trials.map((t) => t.rom.ssim))} | ${range(c.trials.map((t) => t.rom.localSsim ?? NaN))} |\n`,
      );
    }
  }
} finally {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
}
