/**
 * Key names. Our `Action` uses pyautogui's lower-case key names ("enter", "ctrl", "pagedown").
 * Vendor formats spell keys differently (xdotool "Return", "Page_Down", "ctrl+s"; OpenAI
 * "CTRL", "ENTER"); {@link normalizeKey} maps them all to the pyautogui name or returns undefined.
 */

/** pyautogui.KEYBOARD_KEYS minus the single printable characters, which are always accepted. */
const NAMED_KEYS = new Set([
  "accept",
  "add",
  "alt",
  "altleft",
  "altright",
  "apps",
  "backspace",
  "browserback",
  "browserfavorites",
  "browserforward",
  "browserhome",
  "browserrefresh",
  "browsersearch",
  "browserstop",
  "capslock",
  "clear",
  "convert",
  "ctrl",
  "ctrlleft",
  "ctrlright",
  "decimal",
  "del",
  "delete",
  "divide",
  "down",
  "end",
  "enter",
  "esc",
  "escape",
  "execute",
  "f1",
  "f2",
  "f3",
  "f4",
  "f5",
  "f6",
  "f7",
  "f8",
  "f9",
  "f10",
  "f11",
  "f12",
  "f13",
  "f14",
  "f15",
  "f16",
  "f17",
  "f18",
  "f19",
  "f20",
  "f21",
  "f22",
  "f23",
  "f24",
  "final",
  "fn",
  "hanguel",
  "hangul",
  "hanja",
  "help",
  "home",
  "insert",
  "junja",
  "kana",
  "kanji",
  "launchapp1",
  "launchapp2",
  "launchmail",
  "launchmediaselect",
  "left",
  "modechange",
  "multiply",
  "nexttrack",
  "nonconvert",
  "num0",
  "num1",
  "num2",
  "num3",
  "num4",
  "num5",
  "num6",
  "num7",
  "num8",
  "num9",
  "numlock",
  "pagedown",
  "pageup",
  "pause",
  "pgdn",
  "pgup",
  "playpause",
  "prevtrack",
  "print",
  "printscreen",
  "prntscrn",
  "prtsc",
  "prtscr",
  "return",
  "right",
  "scrolllock",
  "select",
  "separator",
  "shift",
  "shiftleft",
  "shiftright",
  "sleep",
  "space",
  "stop",
  "subtract",
  "tab",
  "up",
  "volumedown",
  "volumemute",
  "volumeup",
  "win",
  "winleft",
  "winright",
  "yen",
  "command",
  "option",
  "optionleft",
  "optionright",
]);

/** Aliases (lower-cased, without separators) to the canonical pyautogui name. */
const ALIASES: Record<string, string> = {
  control: "ctrl",
  ctl: "ctrl",
  controlleft: "ctrlleft",
  controlright: "ctrlright",
  controll: "ctrlleft",
  controlr: "ctrlright",
  return: "enter",
  kpenter: "enter",
  escape: "esc",
  del: "delete",
  pgup: "pageup",
  pgdn: "pagedown",
  prior: "pageup",
  next: "pagedown",
  super: "win",
  superl: "winleft",
  superr: "winright",
  meta: "win",
  cmd: "command",
  windows: "win",
  altl: "altleft",
  altr: "altright",
  shiftl: "shiftleft",
  shiftr: "shiftright",
  arrowup: "up",
  arrowdown: "down",
  arrowleft: "left",
  arrowright: "right",
  " ": "space",
  spacebar: "space",
  bksp: "backspace",
  ins: "insert",
  capslock: "capslock",
  caps: "capslock",
  printscreen: "printscreen",
  print: "print",
  menu: "apps",
  minus: "-",
  plus: "+",
  equal: "=",
  comma: ",",
  period: ".",
  slash: "/",
  backslash: "\\",
  semicolon: ";",
  apostrophe: "'",
  grave: "`",
  bracketleft: "[",
  bracketright: "]",
  asterisk: "*",
  underscore: "_",
};

/**
 * The pyautogui name of a key spelled by any supported vendor, or undefined if unknown.
 * Single characters keep their case ("A" stays "A": pyautogui types it with shift).
 */
export function normalizeKey(name: string): string | undefined {
  if (name.length === 1) return name;
  const lower = name.toLowerCase();
  if (NAMED_KEYS.has(lower)) return canonical(lower);
  const squashed = lower.replace(/[_\-\s]/g, "");
  if (ALIASES[squashed]) return ALIASES[squashed];
  if (NAMED_KEYS.has(squashed)) return canonical(squashed);
  // xdotool keypad names: KP_Enter, KP_0
  const kp = /^kp(\d)$/.exec(squashed);
  if (kp) return `num${kp[1]}`;
  return undefined;
}

/** pyautogui accepts several spellings; we keep one, so equal actions compare equal. */
function canonical(lower: string): string {
  switch (lower) {
    case "return":
      return "enter";
    case "escape":
      return "esc";
    case "del":
      return "delete";
    case "pgup":
      return "pageup";
    case "pgdn":
      return "pagedown";
    case "prntscrn":
    case "prtsc":
    case "prtscr":
      return "printscreen";
    default:
      return lower;
  }
}
