import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import {
  compareProbeReports,
  DEFAULT_PROBE_IGNORE,
  probePatternToRegExp,
} from "../../../packages/evaluation/src/probes/compare.ts";
import { loadProbeReport, makeProbeReport } from "../../../packages/core/src/probes/report.ts";
import {
  createProbeVerifier,
  probeVerifierFromSpec,
  ProbeVerifierSpecSchema,
} from "../../../packages/evaluation/src/probes/verifier.ts";
import { withProbes } from "../../../packages/evaluation/src/probes/with-probes.ts";
import { SimDesk, createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { createEnvironmentFactory } from "../../../packages/environments/src/registry.ts";

const blobsIn = () => new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-probes-")), "blobs") });

describe("probe report comparison", () => {
  it("names matched, differing, absent and ignored items", () => {
    const a = makeProbeReport("x11", {
      "file:a.txt": "size=1 sha256=aa",
      "file:b.txt": "size=2 sha256=bb",
      "file:.cache/x": "1",
      focus: "Mousepad",
    });
    const b = makeProbeReport("x11", {
      "file:a.txt": "size=1 sha256=aa",
      "file:c.txt": "size=3 sha256=cc",
      "file:.cache/x": "2",
      focus: "Mousepad",
    });
    const cmp = compareProbeReports(a, b);
    expect(cmp.equal).toBe(false);
    expect(cmp.matched).toEqual(["file:a.txt", "focus"]);
    expect(cmp.differed).toEqual([
      { key: "file:b.txt", target: "size=2 sha256=bb", current: undefined },
      { key: "file:c.txt", target: undefined, current: "size=3 sha256=cc" },
    ]);
    expect(cmp.ignored).toEqual(["file:.cache/x"]);
  });

  it("skips a namespace whose probe failed on either side instead of calling it a difference", () => {
    const a = makeProbeReport("x11", { "ax:mousepad:text": "1", focus: "M" });
    const b = makeProbeReport("x11", { focus: "M" }, { ax: "pyatspi missing" });
    const cmp = compareProbeReports(a, b);
    expect(cmp.equal).toBe(true);
    expect(cmp.unavailable).toEqual({ ax: "current: pyatspi missing" });
  });

  it("reads * as one path segment and ** as any depth", () => {
    expect(probePatternToRegExp("file:*.txt").test("file:a.txt")).toBe(true);
    expect(probePatternToRegExp("file:*.txt").test("file:d/a.txt")).toBe(false);
    expect(probePatternToRegExp("file:**.txt").test("file:d/a.txt")).toBe(true);
    expect(DEFAULT_PROBE_IGNORE).toContain("ax:*:enabled");
  });
});

describe("state probes on SimDesk", () => {
  it("record a probe reference with every observation, in the blob store, not on the observation", async () => {
    const blobs = blobsIn();
    const env = withProbes(createSimDesk({ blobs }), { blobs });
    expect(env).toBeInstanceOf(SimDesk); // the wrapper keeps SimDesk's own methods usable
    const obs = await env.reset(getSimDeskTask("settings-revert-location"));
    expect(obs.probe).toMatch(/^[0-9a-f]{64}$/);
    const report = await loadProbeReport(blobs, obs.probe!);
    expect(report.items["setting:privacy.location"]).toBe("true");
    expect(report.items.focus).toBe("settings");
    expect(Object.keys(report.items).some((k) => k.startsWith("file:/home/user/Documents/"))).toBe(true);
    const again = await env.observe();
    expect(again.probe).toBe(obs.probe); // same state, same report bytes
  });

  it("the probe verifier catches a hidden file change the screen does not show, and names it", async () => {
    const blobs = blobsIn();
    const desk = createSimDesk({ blobs });
    const env = withProbes(desk, { blobs });
    const target = await env.reset(getSimDeskTask("settings-revert-location"));
    const visible = desk.visibleHash();
    const s = desk.getState();
    const notes = "/home/user/Documents/notes.txt";
    s.fs[notes] = { type: "file", text: "Meeting at 11\nCall the bank\n" };
    desk.setState(s);
    const current = await env.observe();
    expect(desk.visibleHash()).toBe(visible);
    expect(current.screenshot).toBe(target.screenshot); // visually perfect
    const v = await createProbeVerifier().verify({ target, current, blobs });
    expect(v.verdict).toBe("mismatch");
    expect(v.comparison!.differed.map((d) => d.key)).toEqual([`file:${notes}`]);
    expect(v.evidence[0]).toMatch(
      new RegExp(`^differs file:${notes}: target size=28 sha256=[0-9a-f]{16} \\| current size=28 sha256=[0-9a-f]{16}$`),
    );
    // ignoring the path turns it into a match whose evidence lists what matched
    const lenient = await createProbeVerifier({ ignore: ["file:/home/user/Documents/*"], maxListed: 100 }).verify({
      target,
      current,
      blobs,
    });
    expect(lenient.verdict).toBe("match");
    expect(lenient.evidence.some((e) => e.startsWith("matches setting:privacy.location: true"))).toBe(true);
  });

  it("a settings change is a mismatch on the setting itself", async () => {
    const blobs = blobsIn();
    const env = createEnvironmentFactory("simdesk", { blobs, probes: true });
    const desk = await env();
    const target = await desk.reset(getSimDeskTask("settings-revert-location"));
    const s = (desk as SimDesk).getState();
    s.fs["/home/user/.config/desk/settings.json"] = {
      type: "file",
      text: (s.fs["/home/user/.config/desk/settings.json"] as { text: string }).text.replace(
        '"privacy.location": true',
        '"privacy.location": false',
      ),
    };
    (desk as SimDesk).setState(s);
    const v = await createProbeVerifier({ ignore: ["file:**"] }).verify({
      target,
      current: await desk.observe(),
      blobs,
    });
    expect(v.verdict).toBe("mismatch");
    expect(v.comparison!.differed.map((d) => d.key)).toContain("setting:privacy.location");
  });

  it("abstains when the target has no probe report, and probes the live environment when the current one has none", async () => {
    const blobs = blobsIn();
    const desk = createSimDesk({ blobs });
    const plain = await desk.reset(getSimDeskTask("settings-revert-location"));
    const v = await createProbeVerifier().verify({ target: plain, current: plain, blobs });
    expect(v).toMatchObject({ verdict: "abstain", evidence: [] });
    expect(v.reason).toMatch(/probes: true/);
    const target = await withProbes(desk, { blobs }).observe();
    const live = await createProbeVerifier().verify({ target, current: plain, blobs, env: desk });
    expect(live.verdict).toBe("match");
  });

  it("rejects bad options with a ConfigError naming the field, and parses the config spec", () => {
    expect(() => createProbeVerifier({ ignore: [""] })).toThrow(ConfigError);
    expect(() => createProbeVerifier({ maxListed: -1 })).toThrow(/maxListed/);
    expect(ProbeVerifierSpecSchema.parse({ kind: "probe", ignore: ["file:tmp/**"] })).toEqual({
      kind: "probe",
      ignore: ["file:tmp/**"],
      defaultIgnore: true,
      maxListed: 12,
      name: "probe-verifier",
    });
    expect(() => ProbeVerifierSpecSchema.parse({ kind: "probe", ignores: [] })).toThrow();
    expect(probeVerifierFromSpec({ kind: "probe", ignore: ["file:tmp/**"] }).ignore).toEqual([
      ...DEFAULT_PROBE_IGNORE,
      "file:tmp/**",
    ]);
    expect(() => probeVerifierFromSpec({ kind: "probe", ignore: "file:tmp/**" })).toThrow(
      /^verifier\.ignore: .*expected \{ kind: probe/,
    );
  });
});
