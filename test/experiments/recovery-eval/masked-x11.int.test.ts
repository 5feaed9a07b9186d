/**
 * R_Om on a real X11 desktop (mousepad): the dynamic content of a live desktop - GTK's blinking
 * caret, a panel clock ticking every second and a notification pop-up that comes and goes - makes
 * the paper's R_O reject truly restored states; R_Om, with the mask learned as a dataset build
 * learns it (the target's first capture plus WAIT re-captures), accepts them and still rejects a
 * selection left in place; its local floor also rejects a stray line the mean SSIM passes. Numbers:
 * experiments/scripts/measure-masked-x11.ts (README).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { createX11Desktop } from "../../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../../packages/desktops/src/x11/desktop-environment.ts";
import { measureMaskedOracleX11, type MaskedX11Measurement } from "../../../experiments/recovery-eval/x11-masked.ts";
import { X11_TOOLS, systemTools } from "../../helpers/system-tools.ts";

const tools = systemTools("the R_Om X11 test", [...X11_TOOLS, "pymod:tkinter"]);
const dir = mkdtempSync(join(tmpdir(), "retrace-masked-x11-"));
const blobs = new BlobStore({ dir: join(dir, "blobs") });
const trialsOf = (m: MaskedX11Measurement, ...ids: string[]) =>
  m.cases.filter((c) => ids.includes(c.id)).flatMap((c) => c.trials);

describe.runIf(tools.run)("R_O vs R_Om on the X11 desktop (mousepad, blinking caret, clock, pop-up)", () => {
  let env: DesktopEnvironment;
  beforeAll(() => {
    tools.assert();
    env = createX11Desktop({ blobs });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("with a clock and a pop-up, R_O rejects truly restored states and R_Om accepts every one; both reject a selection left in place", async () => {
    const m = await measureMaskedOracleX11(env, blobs, { noise: true, trials: 3 });
    expect(m.captures).toBeGreaterThanOrEqual(3); // the clock changes every second between the re-captures
    expect(m.maskFraction).toBeGreaterThan(0.005); // clock + pop-up + caret
    expect(m.maskFraction).toBeLessThan(0.1);
    const restored = trialsOf(m, "idle", "typo-undone");
    expect(restored.every((t) => t.rom.pass && t.rom.ssim >= 0.999)).toBe(true); // a caret phase no capture caught costs ~1e-4
    // the local floor is on and keeps every truly restored state (outside the mask it is pixel-identical here)
    expect(restored.every((t) => t.rom.localFloor !== undefined && t.rom.localSsim! >= t.rom.localFloor)).toBe(true);
    // the pop-up came or went between the target and at least one judgement: R_O says "not restored"
    expect(restored.some((t) => !t.ro.pass && t.ro.ssim < 0.98)).toBe(true);
    const selected = trialsOf(m, "select-all");
    expect(selected.every((t) => !t.ro.pass && !t.rom.pass && t.rom.ssim < 0.95)).toBe(true);
    // A mean SSIM at 0.99 cannot see one stray character (R_TC's job); the local floor sees a stray line
    expect(trialsOf(m, "stray-char").every((t) => t.rom.meanPass)).toBe(true);
    expect(trialsOf(m, "stray-line").every((t) => t.rom.meanPass && !t.rom.pass)).toBe(true);
  }, 150_000);

  it("with only the blinking caret, R_O and the mean-only R_Om give the same verdict on every judgement; the floor adds the stray line", async () => {
    const m = await measureMaskedOracleX11(env, blobs, { noise: false, trials: 2 });
    expect(m.maskFraction).toBeLessThan(0.002); // a caret-sized mask (or none, when every capture caught the same phase)
    for (const c of m.cases) for (const t of c.trials) expect(t.rom.meanPass).toBe(t.ro.pass);
    expect(trialsOf(m, "stray-line").every((t) => t.ro.pass && !t.rom.pass)).toBe(true);
    expect(trialsOf(m, "idle", "typo-undone").every((t) => t.rom.pass)).toBe(true);
    expect(trialsOf(m, "idle", "typo-undone").every((t) => t.ro.pass)).toBe(true);
    expect(trialsOf(m, "select-all").every((t) => !t.ro.pass)).toBe(true);
  }, 150_000);
});
