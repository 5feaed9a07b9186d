/**
 * OSWorld's Chrome getters that retrace computes itself, against the same VM contract: Chrome's
 * profile in `~/.config/google-chrome` (read through the control server's `/file`) and Chromium's
 * remote-debugging endpoint at the client's `chromiumUrl` (OSWorld's `chromium_port`, 9222 in the
 * VM, where a task's socat forwards to Chrome's `--remote-debugging-port=1337`). Results follow
 * OSWorld's getters: the same values, the same defaults when the profile has no setting.
 */
import { EnvironmentError } from "@retrace-cua/core/errors";
import type { OsworldClient } from "./client.ts";

/** Chrome getters computed natively. */
export const CHROME_GETTERS = [
  "enable_do_not_track",
  "default_search_engine",
  "profile_name",
  "open_tabs_info",
] as const;

/** Chrome's Preferences file on OSWorld's Linux VM (the apps image's google-chrome uses this profile). */
export const CHROME_PREFERENCES = "/home/user/.config/google-chrome/Default/Preferences";

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

async function preferences(client: OsworldClient): Promise<Record<string, unknown> | undefined> {
  const bytes = await client.file(CHROME_PREFERENCES);
  if (!bytes) return undefined;
  try {
    return obj(JSON.parse(bytes.toString("utf8")));
  } catch {
    return undefined;
  }
}

/** One open tab as OSWorld's `open_tabs_info` lists it. */
export interface ChromeTab {
  title: string;
  url: string;
}

interface DevtoolsTarget {
  type?: string;
  title?: string;
  url?: string;
}

async function listTargets(url: string): Promise<DevtoolsTarget[]> {
  const res = await fetch(`${url}/json/list`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new EnvironmentError(`HTTP ${res.status}`);
  return (await res.json()) as DevtoolsTarget[];
}

/**
 * The open tabs (pages) of the Chrome behind `client.chromiumUrl`, from the DevTools HTTP
 * endpoint. As OSWorld's getter does, a Chrome that does not answer is launched once through the
 * control server (`google-chrome --remote-debugging-port=1337`) and asked again after 5 s.
 */
export async function openTabs(client: OsworldClient, relaunchWaitMs = 5000): Promise<ChromeTab[]> {
  const url = client.chromiumUrl;
  if (!url)
    throw new EnvironmentError(
      "this OSWorld client has no Chromium debugging endpoint (chromiumUrl): the Chrome getters need one",
      { retryable: false },
    );
  let targets: DevtoolsTarget[];
  try {
    targets = await listTargets(url);
  } catch {
    await client.setup("launch", { command: ["google-chrome", "--remote-debugging-port=1337"], shell: false });
    await new Promise((r) => setTimeout(r, relaunchWaitMs));
    try {
      targets = await listTargets(url);
    } catch (cause) {
      throw new EnvironmentError(
        `Chrome's debugging endpoint ${url} does not answer (is Chrome running with --remote-debugging-port=1337 and socat forwarding 9222?): ${(cause as Error).message}`,
        { cause, retryable: false },
      );
    }
  }
  return targets.filter((t) => t.type === "page").map((t) => ({ title: t.title ?? "", url: t.url ?? "" }));
}

/** The value of one native Chrome getter. */
export async function chromeGetter(client: OsworldClient, type: (typeof CHROME_GETTERS)[number]): Promise<unknown> {
  switch (type) {
    case "enable_do_not_track":
      return (await preferences(client))?.enable_do_not_track ? "true" : "false";
    case "default_search_engine": {
      const name = obj(obj((await preferences(client))?.default_search_provider_data).template_url_data).short_name;
      return name === undefined ? "Google" : name;
    }
    case "profile_name": {
      // OSWorld's getter gives None when the profile has no name or Chrome never wrote Preferences.
      const name = obj((await preferences(client))?.profile).name;
      return name === undefined ? null : name;
    }
    case "open_tabs_info":
      return openTabs(client);
  }
}
