/**
 * Every built-in browser task against real Chromium and the real app server: its reference plan
 * passes its checker, and the plan with the task's first listed mistake fails it. Checkers read
 * the server's state only. To keep the file fast, plans run through the action layer on one
 * browser context whose cookies and storage are cleared between tasks (the environment itself,
 * with a fresh context per episode, is covered by environment.int.test.ts).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Action } from "../../../../packages/core/src/action.ts";
import { NavigationTracker, performAction } from "../../../../packages/browser/src/actions.ts";
import { startAppServer, type AppServer } from "../../../../packages/browser/src/apps/server.ts";
import { fixtureState } from "../../../../packages/browser/src/apps/state.ts";
import { launchChromium } from "../../../../packages/browser/src/chromium.ts";
import { BROWSER_CHECKS, BROWSER_TASKS } from "../../../../packages/browser/src/tasks/index.ts";
import { parseBrowserTask, type BrowserTask } from "../../../../packages/browser/src/tasks/types.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the browser environment tests", CHROMIUM_TOOLS);

describe.runIf(tools.run)("built-in browser tasks", () => {
  let server: AppServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let nav: NavigationTracker;

  beforeAll(async () => {
    tools.assert();
    server = await startAppServer();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    nav = await NavigationTracker.install(page);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function run(task: BrowserTask, plan: Action[]) {
    const { setup } = parseBrowserTask(task);
    if (!("fixture" in setup)) throw new Error("built-in tasks start from a fixture");
    await context.clearCookies();
    server.load(setup.fixture);
    await page.goto(server.url + setup.path);
    const pointer = { x: 0, y: 0 };
    for (const a of plan) {
      if (a.type === "DONE") break;
      await performAction(page, a, pointer, nav);
    }
    return BROWSER_CHECKS.get(task.id)!(structuredClone(server.state));
  }

  it("ships at least 30 tasks over three apps, each with a checker, a plan and a mistake", () => {
    expect(BROWSER_TASKS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(BROWSER_TASKS.flatMap((t) => t.apps)).size).toBe(3);
    expect(new Set(BROWSER_TASKS.map((t) => t.id)).size).toBe(BROWSER_TASKS.length);
    for (const t of BROWSER_TASKS) {
      expect(BROWSER_CHECKS.has(t.id), t.id).toBe(true);
      expect(t.mistakes.length, t.id).toBeGreaterThan(0);
      expect(t.plan.at(-1)?.type, t.id).toBe("DONE");
    }
  });

  it("fails every checker on the task's untouched initial state", () => {
    for (const task of BROWSER_TASKS) {
      const { setup } = parseBrowserTask(task);
      expect(
        BROWSER_CHECKS.get(task.id)!(fixtureState("fixture" in setup ? setup.fixture : "default")).score,
        task.id,
      ).toBe(0);
    }
  });

  it("passes every checker on its reference plan and fails it with the task's first mistake", async () => {
    const failures: string[] = [];
    for (const task of BROWSER_TASKS) {
      const good = await run(task, task.plan);
      if (good.score !== 1) failures.push(`${task.id} reference plan: ${good.detail}`);
      const m = task.mistakes[0];
      const wrong =
        m.kind === "skip"
          ? [...task.plan.slice(0, m.atStep), ...m.actions, ...task.plan.slice(m.atStep + 1)]
          : [
              ...task.plan.slice(0, m.atStep),
              ...m.actions,
              ...(m.kind === "premature-done" ? [] : task.plan.slice(m.atStep + 1)),
            ];
      const bad = await run(task, wrong);
      if (bad.score !== 0) failures.push(`${task.id} with mistake "${m.note}" passed`);
    }
    expect(failures).toEqual([]);
  });
});
