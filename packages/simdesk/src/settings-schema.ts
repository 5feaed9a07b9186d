/**
 * The settings SimDesk's settings app edits. Values live in a hidden JSON config file
 * (CONFIG_PATH); most have no visible effect outside their own page.
 */
import type { Fs, SettingsPage } from "./types.ts";
import { CONFIG_PATH } from "./vfs.ts";

/** One setting: a switch (boolean) or a choice among options. */
export interface SettingDef {
  key: string;
  page: SettingsPage;
  label: string;
  options?: readonly string[];
}

export const SETTINGS: readonly SettingDef[] = [
  { key: "appearance.accent", page: "appearance", label: "Accent colour", options: ["blue", "green", "orange"] },
  { key: "appearance.animations", page: "appearance", label: "Animations" },
  { key: "appearance.largeText", page: "appearance", label: "Large text in title bars" },
  { key: "notifications.dnd", page: "notifications", label: "Do not disturb" },
  { key: "notifications.previews", page: "notifications", label: "Show message previews" },
  { key: "notifications.sound", page: "notifications", label: "Play a sound" },
  { key: "power.autoSuspend", page: "power", label: "Automatic suspend" },
  { key: "power.blank", page: "power", label: "Blank screen after (min)", options: ["1", "5", "10", "15"] },
  { key: "power.dim", page: "power", label: "Dim screen when inactive" },
  { key: "privacy.location", page: "privacy", label: "Location services" },
  { key: "privacy.recent", page: "privacy", label: "Remember recent files" },
  { key: "privacy.autoEmptyTrash", page: "privacy", label: "Empty Trash automatically" },
];

export type SettingValue = string | boolean;
export type SettingsValues = Record<string, SettingValue>;

export const DEFAULT_SETTINGS: SettingsValues = {
  "appearance.accent": "blue",
  "appearance.animations": true,
  "appearance.largeText": false,
  "notifications.dnd": false,
  "notifications.previews": true,
  "notifications.sound": true,
  "power.autoSuspend": true,
  "power.blank": "5",
  "power.dim": true,
  "privacy.location": false,
  "privacy.recent": true,
  "privacy.autoEmptyTrash": false,
};

export const PAGE_TITLES: Record<SettingsPage, string> = {
  appearance: "Appearance",
  notifications: "Notifications",
  power: "Power",
  privacy: "Privacy",
};

export function settingDef(key: string): SettingDef | undefined {
  return SETTINGS.find((s) => s.key === key);
}

/** Current values: defaults overlaid with what the config file says (a broken file reads as defaults). */
export function readSettings(fs: Fs): SettingsValues {
  const node = fs[CONFIG_PATH];
  if (!node || node.type !== "file") return { ...DEFAULT_SETTINGS };
  try {
    const parsed = JSON.parse(node.text) as SettingsValues;
    return { ...DEFAULT_SETTINGS, ...parsed };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

/** Serialise settings as the config file's text (stable key order). */
export function settingsText(values: SettingsValues): string {
  const ordered: SettingsValues = {};
  for (const s of SETTINGS) ordered[s.key] = values[s.key] ?? DEFAULT_SETTINGS[s.key];
  return JSON.stringify(ordered, null, 2) + "\n";
}

/** A file system with one setting changed in the config file. */
export function writeSetting(fs: Fs, key: string, value: SettingValue): Fs {
  const values = readSettings(fs);
  values[key] = value;
  return { ...fs, [CONFIG_PATH]: { type: "file", text: settingsText(values) } };
}

export const ACCENTS: Record<string, string> = { blue: "#2f6fdb", green: "#2e9d5b", orange: "#d9771f" };
