/** Settings tasks: switches and choices on several pages, values in a hidden config file. */
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import { defineSimDeskTask, type PlanBuilder, type TaskDef } from "./builder.ts";
import { home, settings, UNCHANGED } from "./common.ts";

/** A latent slip: visit another page, flip a switch there, come back (the screen looks the same). */
function latentDetour(page: string, key: string, back: string) {
  return (m: PlanBuilder) =>
    m.click(`settings.page.${page}`).click(`settings.switch.${key}`).click(`settings.page.${back}`);
}

const defs: TaskDef[] = [
  {
    id: "settings-dnd-previews",
    apps: ["settings"],
    setup: home(),
    instruction: "In Settings, turn on Do not disturb and turn off message previews, then close Settings.",
    checks: [...settings({ "notifications.dnd": true, "notifications.previews": false }), UNCHANGED],
    build: (b) =>
      b
        .launch("settings")
        .click("settings.page.notifications")
        .mistake(
          "latent",
          "switched off Remember recent files on the Privacy page and came back",
          latentDetour("privacy", "privacy.recent", "notifications"),
        )
        .click("settings.switch.notifications.dnd")
        .mistake("wrong-item", "switched off the sound instead of previews", (m) =>
          m.click("settings.switch.notifications.sound"),
        )
        .click("settings.switch.notifications.previews")
        .click("settings.close"),
  },
  {
    id: "settings-power-blank",
    apps: ["settings"],
    setup: home(),
    instruction: "Set 'Blank screen after' to 15 minutes and turn off Automatic suspend, then close Settings.",
    checks: [...settings({ "power.blank": "15", "power.autoSuspend": false }), UNCHANGED],
    build: (b) =>
      b
        .launch("settings")
        .click("settings.page.power")
        .mistake("wrong-item", "chose 10 minutes", (m) => m.click("settings.option.power.blank.10"))
        .click("settings.option.power.blank.15")
        .mistake(
          "latent",
          "turned off Animations on the Appearance page and came back",
          latentDetour("appearance", "appearance.animations", "power"),
        )
        .click("settings.switch.power.autoSuspend")
        .click("settings.close"),
  },
  {
    id: "settings-accent-green",
    apps: ["settings"],
    setup: home(),
    instruction: "Make the accent colour green, turn off animations and turn on large title text. Close Settings.",
    checks: [
      ...settings({ "appearance.accent": "green", "appearance.animations": false, "appearance.largeText": true }),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("settings")
        .mistake("wrong-item", "chose orange", (m) => m.click("settings.option.appearance.accent.orange"))
        .click("settings.option.appearance.accent.green")
        .click("settings.switch.appearance.animations")
        .click("settings.switch.appearance.largeText")
        .click("settings.close"),
  },
  {
    id: "settings-privacy-three",
    apps: ["settings"],
    setup: home({}, { settings: { "privacy.location": true } }),
    instruction:
      "On the Privacy page: turn off Location services, turn off Remember recent files, and turn on Empty Trash automatically. Close Settings.",
    checks: [
      ...settings({ "privacy.location": false, "privacy.recent": false, "privacy.autoEmptyTrash": true }),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("settings")
        .click("settings.page.privacy")
        .click("settings.switch.privacy.location")
        .mistake(
          "latent",
          "turned off Dim screen on the Power page and came back",
          latentDetour("power", "power.dim", "privacy"),
        )
        .click("settings.switch.privacy.recent")
        .mistake("wrong-item", "switched Location services back on instead", (m) =>
          m.click("settings.switch.privacy.location"),
        )
        .click("settings.switch.privacy.autoEmptyTrash")
        .click("settings.close"),
  },
  {
    id: "settings-two-pages",
    apps: ["settings"],
    setup: home(),
    instruction:
      "Turn off notification sounds and turn off Dim screen when inactive; set the screen to blank after 1 minute.",
    checks: [...settings({ "notifications.sound": false, "power.dim": false, "power.blank": "1" }), UNCHANGED],
    build: (b) =>
      b
        .launch("settings")
        .click("settings.page.notifications")
        .click("settings.switch.notifications.sound")
        .click("settings.page.power")
        .mistake("wrong-item", "switched off Automatic suspend instead of Dim screen", (m) =>
          m.click("settings.switch.power.autoSuspend"),
        )
        .click("settings.switch.power.dim")
        .click("settings.option.power.blank.1"),
  },
  {
    id: "settings-revert-location",
    apps: ["settings"],
    setup: home({}, { settings: { "privacy.location": true }, open: [{ app: "settings", page: "appearance" }] }),
    instruction: "Location services were switched on by mistake: turn them off again, and turn on Do not disturb.",
    checks: [...settings({ "privacy.location": false, "notifications.dnd": true }), UNCHANGED],
    build: (b) =>
      b
        .click("settings.page.privacy")
        .click("settings.switch.privacy.location")
        .click("settings.page.notifications")
        .mistake("wrong-item", "turned off message previews instead", (m) =>
          m.click("settings.switch.notifications.previews"),
        )
        .click("settings.switch.notifications.dnd")
        .click("settings.close"),
  },
  {
    id: "settings-defaults-back",
    apps: ["settings"],
    setup: home(
      {},
      { settings: { "appearance.accent": "orange", "appearance.animations": false, "power.blank": "10" } },
    ),
    instruction: "Put the accent colour back to blue and turn Animations back on; leave everything else as it is.",
    checks: [...settings({ "appearance.accent": "blue", "appearance.animations": true }), UNCHANGED],
    build: (b) =>
      b
        .launch("settings")
        .click("settings.option.appearance.accent.blue")
        .mistake("wrong-item", "turned on large title text instead of Animations", (m) =>
          m.click("settings.switch.appearance.largeText"),
        )
        .click("settings.switch.appearance.animations")
        .click("settings.page.power")
        .click("settings.close"),
  },
];

/** The tasks, built (each plan recorded by running the engine) on first use, not at import. */
export const settingsTasks = (): SimDeskTask[] => defs.map(defineSimDeskTask);
