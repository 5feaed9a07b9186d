/** The settings app: four pages of switches and choices, written straight to a hidden config file. */
import type { AppModule } from "./app.ts";
import { settingsOf } from "./app.ts";
import type { Rect, UiContext, UiNode } from "../ui-types.ts";
import { SETTINGS_PAGES, type DeskState, type SettingsPage, type Win } from "../types.ts";
import { PAGE_TITLES, readSettings, SETTINGS, writeSetting } from "../settings-schema.ts";

const SIDEBAR_W = 180;
const ROW_H = 56;

/** Rect of a setting's control (switch, or the option button `option`) on its page. */
export function settingControlRect(body: Rect, key: string, option?: string): Rect | undefined {
  const def = SETTINGS.find((s) => s.key === key);
  if (!def) return undefined;
  const onPage = SETTINGS.filter((s) => s.page === def.page);
  const i = onPage.indexOf(def);
  const rowY = body[1] + 70 + i * ROW_H;
  const right = body[0] + body[2] - 24;
  if (!def.options) return [right - 56, rowY + 14, 56, 28];
  const k = def.options.indexOf(option ?? def.options[0]);
  const w = 78;
  return [right - (def.options.length - k) * (w + 6), rowY + 14, w, 28];
}

export const settingsApp: AppModule = {
  id: "settings",
  title(_s, win) {
    return `${PAGE_TITLES[settingsOf(win).page]} - Settings`;
  },
  menus() {
    return {};
  },
  body(s: DeskState, win: Win, _ctx: UiContext, rect: Rect): UiNode[] {
    const v = settingsOf(win);
    const values = readSettings(s.fs);
    const [x, y, w, h] = rect;
    const pages: UiNode[] = SETTINGS_PAGES.map((p, i) => ({
      id: `settings.page.${p}`,
      role: "tab",
      name: PAGE_TITLES[p],
      text: PAGE_TITLES[p],
      rect: [x + 6, y + 10 + i * 34, SIDEBAR_W - 12, 30] as Rect,
      style: "sideitem",
      states: v.page === p ? ["selected"] : undefined,
      click: { op: "settings.page", a: p },
    }));
    const content: UiNode[] = [
      {
        id: "settings.heading",
        role: "heading",
        name: PAGE_TITLES[v.page],
        text: PAGE_TITLES[v.page],
        rect: [x + SIDEBAR_W + 24, y + 16, 400, 36],
        style: "heading",
      },
    ];
    SETTINGS.filter((d) => d.page === v.page).forEach((d, i) => {
      const rowY = y + 70 + i * ROW_H;
      content.push({
        id: `settings.label.${d.key}`,
        role: "label",
        name: d.label,
        text: d.label,
        rect: [x + SIDEBAR_W + 24, rowY, 300, ROW_H],
        style: "rowlabel",
      });
      if (!d.options) {
        const on = values[d.key] === true;
        content.push({
          id: `settings.switch.${d.key}`,
          role: "switch",
          name: d.label,
          rect: settingControlRect(rect, d.key)!,
          style: "switch",
          states: on ? ["checked"] : undefined,
          value: on ? "on" : "off",
          click: { op: "settings.toggle", a: d.key },
        });
      } else {
        for (const opt of d.options) {
          const chosen = values[d.key] === opt;
          content.push({
            id: `settings.option.${d.key}.${opt}`,
            role: "radio button",
            name: `${d.label}: ${opt}`,
            text: opt,
            rect: settingControlRect(rect, d.key, opt)!,
            style: "option",
            states: chosen ? ["checked"] : undefined,
            click: { op: "settings.set", a: d.key, b: opt },
          });
        }
      }
      content.push({
        id: `settings.sep.${i}`,
        role: "separator",
        name: "",
        rect: [x + SIDEBAR_W + 16, rowY + ROW_H - 1, w - SIDEBAR_W - 32, 1],
        style: "separator",
      });
    });
    return [
      {
        id: "settings.sidebar",
        role: "tab list",
        name: "Pages",
        rect: [x, y, SIDEBAR_W, h],
        style: "sidebar",
        children: pages,
      },
      ...content,
    ];
  },
  command(s, win, cmd) {
    const v = settingsOf(win);
    if (cmd.op === "settings.page") {
      v.page = cmd.a as SettingsPage;
      return true;
    }
    if (cmd.op === "settings.toggle") {
      s.fs = writeSetting(s.fs, cmd.a!, !readSettings(s.fs)[cmd.a!]);
      return true;
    }
    if (cmd.op === "settings.set") {
      s.fs = writeSetting(s.fs, cmd.a!, cmd.b!);
      return true;
    }
    return false;
  },
  key(_s, win, combo) {
    const v = settingsOf(win);
    const i = SETTINGS_PAGES.indexOf(v.page);
    if (combo === "ctrl+pagedown" || combo === "down")
      v.page = SETTINGS_PAGES[Math.min(SETTINGS_PAGES.length - 1, i + 1)];
    else if (combo === "ctrl+pageup" || combo === "up") v.page = SETTINGS_PAGES[Math.max(0, i - 1)];
    else return false;
    return true;
  },
  type() {
    return false;
  },
};
