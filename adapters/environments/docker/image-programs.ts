/**
 * Programs the retrace desktop image (experiments/docker/Dockerfile) has, for telling which OSWorld
 * tasks can run on a container desktop: a task that launches anything else needs a bigger image.
 * Keep in step with the Dockerfile's package list.
 */
export const DESKTOP_IMAGE_PROGRAMS: ReadonlySet<string> = new Set([
  "mousepad", "galculator", "gnumeric", "ssconvert", "python", "python3", "bash", "sh", "xdotool", "xdg-open", "gsettings",
  "dconf", "sudo", "bc", "pkill", "ps", "kill", "sleep", "echo", "mkdir", "rm", "touch", "cp", "mv", "cat", "ls", "import", "display",
]);
