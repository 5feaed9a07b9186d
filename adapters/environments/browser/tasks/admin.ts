/** Admin tasks: site settings (text, radio, checkboxes, number) and user management. */
import { ADMIN } from "../apps/layout.ts";
import { fixtureState, type AdminSettings, type AdminUser, type AppsState } from "../apps/state.ts";
import { act, defineBrowserTask, verdict, type AppsCheck, type BrowserTask } from "./types.ts";

const { click, type, hot, done } = act;
const INITIAL = fixtureState("default").admin;

/** Settings saved and equal to the initial ones with `change` applied (nothing else touched). */
function settingsAre(change: Partial<AdminSettings>): AppsCheck {
  return (s: AppsState) => {
    const want = { ...INITIAL.settings, ...change };
    const got = s.admin.settings;
    return verdict([
      [s.admin.saves >= 1, "the settings were never saved"],
      ...(Object.keys(want) as Array<keyof AdminSettings>).map((k): [boolean, string] => [got[k] === want[k], `${k} is ${JSON.stringify(got[k])}, expected ${JSON.stringify(want[k])}`]),
    ]);
  };
}

/** Users equal to the initial ones with `change` applied to user `id`, plus `added`. */
function usersAre(id: number, change: Partial<AdminUser>, added: AdminUser[] = []): AppsCheck {
  return (s: AppsState) => {
    const want = [...INITIAL.users.map((u) => (u.id === id ? { ...u, ...change } : u)), ...added];
    return verdict([[JSON.stringify(s.admin.users) === JSON.stringify(want), `users are ${JSON.stringify(s.admin.users)}, expected ${JSON.stringify(want)}`]]);
  };
}

const replaceText = (field: typeof ADMIN.siteName, text: string) => [click(field), hot("ctrl", "a"), type(text)];

/** Admin tasks with their checkers. */
export const ADMIN_TASKS: Array<[BrowserTask, AppsCheck]> = [
  [
    defineBrowserTask({
      id: "admin-rename-site", app: "admin", path: "/admin",
      instruction: "Rename the site to 'Acme Support Portal' and save the settings.",
      plan: [...replaceText(ADMIN.siteName, "Acme Support Portal"), click(ADMIN.save), done],
      mistakes: [
        { atStep: 1, kind: "skip", actions: [type("Acme Support Portal")], note: "types without selecting the old name" },
        { atStep: 2, kind: "typo", actions: [type("Acme Suport Portal")], note: "misspells Support" },
      ],
    }),
    settingsAre({ siteName: "Acme Support Portal" }),
  ],
  [
    defineBrowserTask({
      id: "admin-support-email", app: "admin", path: "/admin",
      instruction: "Change the support email to help@acme.test and save.",
      plan: [...replaceText(ADMIN.supportEmail, "help@acme.test"), click(ADMIN.save), done],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(ADMIN.siteName)], note: "edits the site name field instead" },
        { atStep: 3, kind: "premature-done", actions: [done], note: "does not save" },
      ],
    }),
    settingsAre({ supportEmail: "help@acme.test" }),
  ],
  [
    defineBrowserTask({
      id: "admin-timezone-lisbon", app: "admin", path: "/admin",
      instruction: "Set the site timezone to Europe/Lisbon and save.",
      plan: [click(ADMIN.tz["Europe/Lisbon"]), click(ADMIN.save), done],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(ADMIN.tz["America/New_York"])], note: "picks New York" },
        { atStep: 1, kind: "premature-done", actions: [done], note: "does not save" },
      ],
    }),
    settingsAre({ timezone: "Europe/Lisbon" }),
  ],
  [
    defineBrowserTask({
      id: "admin-maintenance-on", app: "admin", path: "/admin",
      instruction: "Put the site into maintenance mode and save.",
      plan: [click(ADMIN.maintenance), click(ADMIN.save), done],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(ADMIN.signups)], note: "unticks signups instead" },
        { atStep: 1, kind: "premature-done", actions: [done], note: "does not save" },
      ],
    }),
    settingsAre({ maintenance: true }),
  ],
  [
    defineBrowserTask({
      id: "admin-signups-off", app: "admin", path: "/admin",
      instruction: "Stop allowing new signups and save the settings.",
      plan: [click(ADMIN.signups), click(ADMIN.save), done],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(ADMIN.maintenance)], note: "turns on maintenance instead" },
        { atStep: 1, kind: "premature-done", actions: [done], note: "does not save" },
      ],
    }),
    settingsAre({ signups: false }),
  ],
  [
    defineBrowserTask({
      id: "admin-upload-50", app: "admin", path: "/admin",
      instruction: "Raise the maximum upload size to 50 MB and save.",
      plan: [...replaceText(ADMIN.maxUpload, "50"), click(ADMIN.save), done],
      mistakes: [
        { atStep: 2, kind: "typo", actions: [type("500")], note: "types 500" },
        { atStep: 1, kind: "skip", actions: [type("50")], note: "appends to the old value (1050)" },
      ],
    }),
    settingsAre({ maxUploadMb: 50 }),
  ],
  [
    defineBrowserTask({
      id: "admin-promote-bruno", app: "admin", path: "/admin/users",
      instruction: "Make Bruno Dias an editor.",
      plan: [click(ADMIN.role.editor(1)), done],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(ADMIN.role.admin(1))], note: "makes him an admin" },
        { atStep: 0, kind: "misclick", actions: [click(ADMIN.role.editor(0))], note: "hits Ana's row" },
      ],
    }),
    usersAre(2, { role: "editor" }),
  ],
  [
    defineBrowserTask({
      id: "admin-deactivate-carla", app: "admin", path: "/admin/users",
      instruction: "Deactivate Carla Mota's account.",
      plan: [click(ADMIN.active(2)), done],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(ADMIN.active(1))], note: "deactivates Bruno" },
        { atStep: 0, kind: "misclick", actions: [click(ADMIN.role.viewer(2))], note: "changes her role" },
      ],
    }),
    usersAre(3, { active: false }),
  ],
  [
    defineBrowserTask({
      id: "admin-add-diego", app: "admin", path: "/admin/users",
      instruction: "Add a user named Diego Reis with the email diego@acme.test.",
      plan: [click(ADMIN.newName), type("Diego Reis"), click(ADMIN.newEmail), type("diego@acme.test"), click(ADMIN.add), done],
      mistakes: [
        { atStep: 3, kind: "typo", actions: [type("deigo@acme.test")], note: "misspells the email" },
        { atStep: 2, kind: "skip", actions: [type("diego@acme.test")], note: "types the email into the name field" },
      ],
    }),
    usersAre(0, {}, [{ id: 4, name: "Diego Reis", email: "diego@acme.test", role: "viewer", active: true }]),
  ],
  [
    defineBrowserTask({
      id: "admin-maintenance-newyork", app: "admin", path: "/admin",
      instruction: "Turn on maintenance mode and set the timezone to America/New_York, then save.",
      plan: [click(ADMIN.maintenance), click(ADMIN.tz["America/New_York"]), click(ADMIN.save), done],
      mistakes: [
        { atStep: 1, kind: "wrong-item", actions: [click(ADMIN.tz["Europe/Lisbon"])], note: "picks Lisbon" },
        { atStep: 1, kind: "skip", actions: [click(ADMIN.save)], note: "saves before changing the timezone" },
      ],
    }),
    settingsAre({ maintenance: true, timezone: "America/New_York" }),
  ],
];
