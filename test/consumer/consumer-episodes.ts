/**
 * CONSUMER EPISODES: the runner of the consumer test's episodes (test/consumer/consumer.int.test.ts),
 * the files that use the SDK wrappers' public API: episode-<name>.ts, each exporting `run()`. They
 * are copied into a fresh project that installed the packed tarballs, compiled there by the
 * project's own `tsc` (strict, NodeNext) and run with plain `node` on Node 20, 22 and 24:
 * `node out/consumer-episodes.js <name>...` runs the named episodes in order (a project holds only
 * the episodes of the SDKs it installed). They import retrace only by package name: `retrace-cua`
 * and its subpaths in the umbrella's projects, rewritten to the @retrace-cua/* packages in a
 * package's own project. When a wrapper's API changes (runWithRecovery, generateTextWithRecovery,
 * withRecovery, recoveryMiddleware, ...), update the episodes.
 *
 * Each episode is SimDesk's files-rename-draft with its wrong-item mistake at step E=2 (Stagehand:
 * the browser's mail-reply-bob): the agent's model is a scripted server (retrace/testing), the LLM
 * detector blames step E, the LLM recovery sub-agent clicks back to the state of step R=1 and says
 * RESTORED, and the agent finishes. The episode must succeed with one recovery and the history cut
 * from E+1 back to R. Prints one JSON line per episode; throws on any difference, and on any
 * warning the AI SDK emits about how the wrappers call it (ai 7's deprecations, e.g.
 * AISDK_DEP_TOOL_RESULT_IMAGE_DATA for a tool result image in ai 6's shape).
 */
import { servers } from "./consumer-scenario.js";

/** The AI SDK's warnings (ai 7 emits them as process warnings with an AISDK_ code). */
const sdkWarnings: string[] = [];
process.on("warning", (w: Error & { code?: string }) => {
  if (w.code?.startsWith("AISDK_")) sdkWarnings.push(`${w.code}: ${w.message}`);
});

try {
  for (const name of process.argv.slice(2)) {
    const episode = (await import(`./episode-${name}.js`)) as { run: () => Promise<void> };
    await episode.run();
  }
  for (const server of servers) server.verify();
  // Process warnings are emitted on the next tick: let them arrive before checking.
  await new Promise((r) => setImmediate(r));
  if (sdkWarnings.length) throw new Error(`the AI SDK warned: ${sdkWarnings.join(" | ")}`);
} finally {
  await Promise.all(servers.map((s) => s.close()));
}
