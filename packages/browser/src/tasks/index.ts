/** The built-in browser task suite (30 tasks on the webmail, the shop and the admin app) and its checkers. */
import type { AppsCheck, BrowserTask } from "./types.ts";
import { ADMIN_TASKS } from "./admin.ts";
import { MAIL_TASKS } from "./mail.ts";
import { SHOP_TASKS } from "./shop.ts";

const ALL = [...MAIL_TASKS, ...SHOP_TASKS, ...ADMIN_TASKS];

/** The built-in tasks (ids are stable; results refer to them). */
export const BROWSER_TASKS: readonly BrowserTask[] = ALL.map(([t]) => t);

/** Built-in checkers by name (a task's `evaluator.check`). */
export const BROWSER_CHECKS: ReadonlyMap<string, AppsCheck> = new Map(ALL.map(([t, c]) => [t.id, c]));
