/** Admin tasks: site settings (text, radio, checkboxes, number) and user management. */
import { ADMIN } from "../apps/layout.ts";
import { fixtureState, type AdminSettings, type AdminUser, type AppsState } from "../apps/state.ts";
import type { Action } from "@retrace-cua/core/action";
import type { Rect } from "../apps/ui.ts";
import { act, defineBrowserTask, verdict, type AppsCheck, type BrowserMistake, type BrowserTask } from "./types.ts";

const { click, type, hot, done } = act;
const INITIAL = fixtureState("default").admin;

/** Settings saved and equal to the initial ones with `change` applied (nothing else touched). */
function settingsAre(change: Partial<AdminSettings>): AppsCheck {
  return (s: AppsState) => {
    const want = { ...INITIAL.settings, ...change };
    const got = s.admin.settings;
    return verdict([
      [s.admin.saves >= 1, "the settings were never saved"],
      ...(Object.keys(want) as Array<keyof AdminSettings>).map((k): [boolean, string] => [
        got[k] === want[k],
        `${k} is ${JSON.stringify(got[k])}, expected ${JSON.stringify(want[k])}`,
      ]),
    ]);
  };
}

/** Users equal to the initial ones with `change` applied to user `id`, plus `added`. */
function usersAre(id: number, change: Partial<AdminUser>, added: AdminUser[] = []): AppsCheck {
  return (s: AppsState) => {
    const want = [...INITIAL.users.map((u) => (u.id === id ? { ...u, ...change } : u)), ...added];
    return verdict([
      [
        JSON.stringify(s.admin.users) === JSON.stringify(want),
        `users are ${JSON.stringify(s.admin.users)}, expected ${JSON.stringify(want)}`,
      ],
    ]);
  };
}

const replaceText = (field: Rect, text: string) => [click(field), hot("ctrl", "a"), type(text)];
const wrong = (atStep: number, r: Rect, note: string): BrowserMistake => ({
  atStep,
  kind: "wrong-item",
  actions: [click(r)],
  note,
});
const misclick = (atStep: number, r: Rect, note: string): BrowserMistake => ({
  atStep,
  kind: "misclick",
  actions: [click(r)],
  note,
});
const unsaved = (atStep: number): BrowserMistake => ({
  atStep,
  kind: "premature-done",
  actions: [done],
  note: "does not save",
});

/** A task on the settings page: `steps`, then Save and done; judged by {@link settingsAre}(`change`). */
function settingsTask(
  id: string,
  instruction: string,
  steps: Action[],
  change: Partial<AdminSettings>,
  mistakes: BrowserMistake[],
): [BrowserTask, AppsCheck] {
  return [
    defineBrowserTask({
      id,
      app: "admin",
      path: "/admin",
      instruction,
      plan: [...steps, click(ADMIN.save), done],
      mistakes,
    }),
    settingsAre(change),
  ];
}

/** A task on the users page: `steps`, then done. */
function usersTask(
  id: string,
  instruction: string,
  steps: Action[],
  check: AppsCheck,
  mistakes: BrowserMistake[],
): [BrowserTask, AppsCheck] {
  return [
    defineBrowserTask({ id, app: "admin", path: "/admin/users", instruction, plan: [...steps, done], mistakes }),
    check,
  ];
}

/** Admin tasks with their checkers. */
export const ADMIN_TASKS: Array<[BrowserTask, AppsCheck]> = [
  settingsTask(
    "admin-rename-site",
    "Rename the site to 'Acme Support Portal' and save the settings.",
    replaceText(ADMIN.siteName, "Acme Support Portal"),
    { siteName: "Acme Support Portal" },
    [
      { atStep: 1, kind: "skip", actions: [type("Acme Support Portal")], note: "types without selecting the old name" },
      { atStep: 2, kind: "typo", actions: [type("Acme Suport Portal")], note: "misspells Support" },
    ],
  ),
  settingsTask(
    "admin-support-email",
    "Change the support email to help@acme.test and save.",
    replaceText(ADMIN.supportEmail, "help@acme.test"),
    { supportEmail: "help@acme.test" },
    [wrong(0, ADMIN.siteName, "edits the site name field instead"), unsaved(3)],
  ),
  settingsTask(
    "admin-timezone-lisbon",
    "Set the site timezone to Europe/Lisbon and save.",
    [click(ADMIN.tz["Europe/Lisbon"])],
    { timezone: "Europe/Lisbon" },
    [wrong(0, ADMIN.tz["America/New_York"], "picks New York"), unsaved(1)],
  ),
  settingsTask(
    "admin-maintenance-on",
    "Put the site into maintenance mode and save.",
    [click(ADMIN.maintenance)],
    { maintenance: true },
    [wrong(0, ADMIN.signups, "unticks signups instead"), unsaved(1)],
  ),
  settingsTask(
    "admin-signups-off",
    "Stop allowing new signups and save the settings.",
    [click(ADMIN.signups)],
    { signups: false },
    [wrong(0, ADMIN.maintenance, "turns on maintenance instead"), unsaved(1)],
  ),
  settingsTask(
    "admin-upload-50",
    "Raise the maximum upload size to 50 MB and save.",
    replaceText(ADMIN.maxUpload, "50"),
    { maxUploadMb: 50 },
    [
      { atStep: 2, kind: "typo", actions: [type("500")], note: "types 500" },
      { atStep: 1, kind: "skip", actions: [type("50")], note: "appends to the old value (1050)" },
    ],
  ),
  usersTask(
    "admin-promote-bruno",
    "Make Bruno Dias an editor.",
    [click(ADMIN.role.editor(1))],
    usersAre(2, { role: "editor" }),
    [wrong(0, ADMIN.role.admin(1), "makes him an admin"), misclick(0, ADMIN.role.editor(0), "hits Ana's row")],
  ),
  usersTask(
    "admin-deactivate-carla",
    "Deactivate Carla Mota's account.",
    [click(ADMIN.active(2))],
    usersAre(3, { active: false }),
    [wrong(0, ADMIN.active(1), "deactivates Bruno"), misclick(0, ADMIN.role.viewer(2), "changes her role")],
  ),
  usersTask(
    "admin-add-diego",
    "Add a user named Diego Reis with the email diego@acme.test.",
    [click(ADMIN.newName), type("Diego Reis"), click(ADMIN.newEmail), type("diego@acme.test"), click(ADMIN.add)],
    usersAre(0, {}, [{ id: 4, name: "Diego Reis", email: "diego@acme.test", role: "viewer", active: true }]),
    [
      { atStep: 3, kind: "typo", actions: [type("deigo@acme.test")], note: "misspells the email" },
      { atStep: 2, kind: "skip", actions: [type("diego@acme.test")], note: "types the email into the name field" },
    ],
  ),
  settingsTask(
    "admin-maintenance-newyork",
    "Turn on maintenance mode and set the timezone to America/New_York, then save.",
    [click(ADMIN.maintenance), click(ADMIN.tz["America/New_York"])],
    { maintenance: true, timezone: "America/New_York" },
    [
      wrong(1, ADMIN.tz["Europe/Lisbon"], "picks Lisbon"),
      { atStep: 1, kind: "skip", actions: [click(ADMIN.save)], note: "saves before changing the timezone" },
    ],
  ),
];
