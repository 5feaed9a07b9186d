/** Settings tasks: switches and choices on several pages, values in a hidden config file. */
import { defineSimDeskTask, type PlanBuilder, type TaskDef } from "./builder.ts";
import { home } from "./common.ts";

/** A latent slip: visit another page, flip a switch there, come back (the screen looks the same). */
function latentDetour(page: string, key: string, back: string) {
  return (m: PlanBuilder) => m.click(`settings.page.${page}`).click(`settings.switch.${key}`).click(`settings.page.${back}`);
}

const defs: TaskDef[] = [
  {
    id: "settings-dnd-previews",
    instruction: "In Settings, turn on Do not disturb and turn off message previews, then close Settings.",
    apps: ["settings"],
    setup: home(),
    checks: [{ kind: "setting", key: "notifications.dnd", value: true }, { kind: "setting", key: "notifications.previews", value: false }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("settings").click("settings.page.notifications");
      b.mistake("latent", "switched off Remember recent files on the Privacy page and came back", latentDetour("privacy", "privacy.recent", "notifications"));
      b.click("settings.switch.notifications.dnd");
      b.mistake("wrong-item", "switched off the sound instead of previews", (m) => m.click("settings.switch.notifications.sound"));
      b.click("settings.switch.notifications.previews").click("settings.close");
    },
  },
  {
    id: "settings-power-blank",
    instruction: "Set 'Blank screen after' to 15 minutes and turn off Automatic suspend, then close Settings.",
    apps: ["settings"],
    setup: home(),
    checks: [{ kind: "setting", key: "power.blank", value: "15" }, { kind: "setting", key: "power.autoSuspend", value: false }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("settings").click("settings.page.power");
      b.mistake("wrong-item", "chose 10 minutes", (m) => m.click("settings.option.power.blank.10"));
      b.click("settings.option.power.blank.15");
      b.mistake("latent", "turned off Animations on the Appearance page and came back", latentDetour("appearance", "appearance.animations", "power"));
      b.click("settings.switch.power.autoSuspend").click("settings.close");
    },
  },
  {
    id: "settings-accent-green",
    instruction: "Make the accent colour green, turn off animations and turn on large title text. Close Settings.",
    apps: ["settings"],
    setup: home(),
    checks: [
      { kind: "setting", key: "appearance.accent", value: "green" },
      { kind: "setting", key: "appearance.animations", value: false },
      { kind: "setting", key: "appearance.largeText", value: true },
      { kind: "unchanged" },
    ],
    build: (b) => {
      b.launch("settings");
      b.mistake("wrong-item", "chose orange", (m) => m.click("settings.option.appearance.accent.orange"));
      b.click("settings.option.appearance.accent.green").click("settings.switch.appearance.animations").click("settings.switch.appearance.largeText").click("settings.close");
    },
  },
  {
    id: "settings-privacy-three",
    instruction: "On the Privacy page: turn off Location services, turn off Remember recent files, and turn on Empty Trash automatically. Close Settings.",
    apps: ["settings"],
    setup: home({}, { settings: { "privacy.location": true } }),
    checks: [
      { kind: "setting", key: "privacy.location", value: false },
      { kind: "setting", key: "privacy.recent", value: false },
      { kind: "setting", key: "privacy.autoEmptyTrash", value: true },
      { kind: "unchanged" },
    ],
    build: (b) => {
      b.launch("settings").click("settings.page.privacy").click("settings.switch.privacy.location");
      b.mistake("latent", "turned off Dim screen on the Power page and came back", latentDetour("power", "power.dim", "privacy"));
      b.click("settings.switch.privacy.recent");
      b.mistake("wrong-item", "switched Location services back on instead", (m) => m.click("settings.switch.privacy.location"));
      b.click("settings.switch.privacy.autoEmptyTrash").click("settings.close");
    },
  },
  {
    id: "settings-two-pages",
    instruction: "Turn off notification sounds and turn off Dim screen when inactive; set the screen to blank after 1 minute.",
    apps: ["settings"],
    setup: home(),
    checks: [
      { kind: "setting", key: "notifications.sound", value: false },
      { kind: "setting", key: "power.dim", value: false },
      { kind: "setting", key: "power.blank", value: "1" },
      { kind: "unchanged" },
    ],
    build: (b) => {
      b.launch("settings").click("settings.page.notifications").click("settings.switch.notifications.sound").click("settings.page.power");
      b.mistake("wrong-item", "switched off Automatic suspend instead of Dim screen", (m) => m.click("settings.switch.power.autoSuspend"));
      b.click("settings.switch.power.dim").click("settings.option.power.blank.1");
    },
  },
  {
    id: "settings-revert-location",
    instruction: "Location services were switched on by mistake: turn them off again, and turn on Do not disturb.",
    apps: ["settings"],
    setup: home({}, { settings: { "privacy.location": true }, open: [{ app: "settings", page: "appearance" }] }),
    checks: [{ kind: "setting", key: "privacy.location", value: false }, { kind: "setting", key: "notifications.dnd", value: true }, { kind: "unchanged" }],
    build: (b) => {
      b.click("settings.page.privacy").click("settings.switch.privacy.location").click("settings.page.notifications");
      b.mistake("wrong-item", "turned off message previews instead", (m) => m.click("settings.switch.notifications.previews"));
      b.click("settings.switch.notifications.dnd").click("settings.close");
    },
  },
  {
    id: "settings-defaults-back",
    instruction: "Put the accent colour back to blue and turn Animations back on; leave everything else as it is.",
    apps: ["settings"],
    setup: home({}, { settings: { "appearance.accent": "orange", "appearance.animations": false, "power.blank": "10" } }),
    checks: [{ kind: "setting", key: "appearance.accent", value: "blue" }, { kind: "setting", key: "appearance.animations", value: true }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("settings").click("settings.option.appearance.accent.blue");
      b.mistake("wrong-item", "turned on large title text instead of Animations", (m) => m.click("settings.switch.appearance.largeText"));
      b.click("settings.switch.appearance.animations").click("settings.page.power").click("settings.close");
    },
  },
];

export const SETTINGS_TASKS = defs.map(defineSimDeskTask);
