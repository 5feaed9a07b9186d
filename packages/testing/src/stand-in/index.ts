/**
 * The stand-in: a stochastic stand-in for a sampling vision-language model behind the OpenAI
 * chat-completions API, so retrace's real model path (HTTP client, prompts, parsers, cache,
 * meters, every experiment) runs offline with answers that depend on the seed, the temperature
 * and the content of each prompt. It is a SIMULATED model and answers as `retrace-stand-in`.
 *
 * What it plays, identified from the prompt's own markers (packages/core/src/prompts/*.ts):
 * - forward agent (pyautogui code): finds the task by its instruction in SimDesk's catalogue,
 *   locates the screen it is shown (linearized accessibility tree; without one it replays its
 *   own earlier answers) along the task's reference plan, and answers the next step grounded on
 *   the element it sees; mistakes (wrong click, typo, catalogue mistake, skipped step, premature
 *   DONE) at `errorRate`; clicks land near, not on, an element's centre (play.ts);
 * - perturber: one plausible, state-changing mistake (play.ts);
 * - recovery sub-agent: undoes only what its prompt shows (recover.ts);
 * - detector, selector, summarizer, verifier: JSON answers from replaying the prompt's action
 *   lines in its private model of the apps, with noise (judges.ts).
 * Its knowledge of the apps (world.ts) is its skill book alone (skills.ts: each task's
 * instruction, reference plan and demonstration screens as accessibility-tree text), the way a
 * model knows common applications; it runs no engine and never talks to a running environment.
 * It reads text, not images: given a screenshot without a tree it follows its plan by step count,
 * says so once on stderr, marks the reply (`stand_in.blind`) and its log entry (`blind`).
 *
 * Start it with {@link startStandInServer} (tests) or `retrace stand-in` (offline runs).
 */
export { startStandInServer, answerRequest, STAND_IN_MODEL, STAND_IN_FINGERPRINT } from "./server.ts";
export type { StandInServer, StandInServerOptions, StandInLogEntry, StandInSettings } from "./server.ts";
export type { DetectorNoise } from "./judges.ts";
export type { SkillBook, SkillTask } from "./skills.ts";
