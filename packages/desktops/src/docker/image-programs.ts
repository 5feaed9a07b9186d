/**
 * Programs the retrace desktop images have, for telling which OSWorld tasks can run on a container
 * desktop: a task that launches anything else needs a bigger image. Keep in step with the package
 * lists of experiments/docker/Dockerfile and experiments/docker/apps/Dockerfile.
 */
import type Docker from "dockerode";
import { DEFAULT_DESKTOP_IMAGE } from "./container-backend.ts";
import { MANAGED_LABEL, ROLE_LABEL } from "./engine.ts";

/** The opt-in image with the apps OSWorld's tasks open (experiments/docker/apps). */
export const APPS_DESKTOP_IMAGE = "retrace-desktop-apps:1";

/** Programs of the default image (`retrace-desktop:3`). */
export const DESKTOP_IMAGE_PROGRAMS: ReadonlySet<string> = new Set([
  "mousepad",
  "galculator",
  "gnumeric",
  "ssconvert",
  "python",
  "python3",
  "bash",
  "sh",
  "xdotool",
  "xdg-open",
  "gsettings",
  "dconf",
  "sudo",
  "bc",
  "pkill",
  "ps",
  "kill",
  "sleep",
  "echo",
  "mkdir",
  "rm",
  "touch",
  "cp",
  "mv",
  "cat",
  "ls",
  "import",
  "display",
]);

/**
 * Programs of the apps image: the default image's plus Debian's Chromium (as `google-chrome`, with
 * Chrome's profile folder), socat, LibreOffice (calc, writer, impress), GIMP, VLC, Thunderbird,
 * gnome-terminal and Nautilus. Not VS Code (`code`): Debian does not package it.
 */
export const APPS_IMAGE_PROGRAMS: ReadonlySet<string> = new Set([
  ...DESKTOP_IMAGE_PROGRAMS,
  "google-chrome",
  "google-chrome-stable",
  "chromium",
  "socat",
  "libreoffice",
  "soffice",
  "localc",
  "lowriter",
  "loimpress",
  "gimp",
  "vlc",
  "cvlc",
  "thunderbird",
  "gnome-terminal",
  "nautilus",
  "wmctrl",
]);

const KNOWN: Record<string, ReadonlySet<string>> = {
  [DEFAULT_DESKTOP_IMAGE]: DESKTOP_IMAGE_PROGRAMS,
  [APPS_DESKTOP_IMAGE]: APPS_IMAGE_PROGRAMS,
};

/** The programs of a known retrace image (`localhost/` prefixes ignored), or undefined for another image. */
export function knownImagePrograms(image: string): ReadonlySet<string> | undefined {
  return KNOWN[image.replace(/^localhost\//, "")];
}

/**
 * Which of `candidates` an image has on its PATH, asked of a short-lived container of that image
 * (no network); for images retrace does not know. Throws when the image does not start.
 */
export async function probeImagePrograms(
  docker: Docker,
  image: string,
  candidates: Iterable<string>,
): Promise<Set<string>> {
  const names = [...new Set(candidates)].filter((p) => /^[A-Za-z0-9._+-]+$/.test(p));
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: [
      "/bin/sh",
      "-c",
      'for p in "$@"; do command -v "$p" >/dev/null 2>&1 && echo "$p"; done; exit 0',
      "probe",
    ],
    Cmd: names,
    Labels: { [MANAGED_LABEL]: "true", [ROLE_LABEL]: "probe" },
    HostConfig: { NetworkMode: "none" },
  });
  try {
    await c.start();
    await c.wait();
    const logs = (await c.logs({ stdout: true, stderr: false })) as unknown as Buffer;
    // Without a TTY the log is multiplexed: 8-byte frame headers before each chunk.
    const out: Buffer[] = [];
    for (let i = 0; i + 8 <= logs.length;) {
      const len = logs.readUInt32BE(i + 4);
      if (logs[i] === 1) out.push(logs.subarray(i + 8, i + 8 + len));
      i += 8 + len;
    }
    return new Set(Buffer.concat(out).toString("utf8").split("\n").filter(Boolean));
  } finally {
    await c.remove({ force: true }).catch(() => undefined);
  }
}
