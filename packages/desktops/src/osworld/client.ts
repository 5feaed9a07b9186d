/**
 * Client for OSWorld's in-VM control server (desktop_env/server, port 5000), with the Python
 * controller's behaviour: screenshots retried (3 tries, 5 s apart, the body must really be an
 * image), `execute` wraps code in OSWorld's pyautogui prefix, misses return undefined.
 */
import { AdapterError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";

/** OSWorld's prefix for `execute_python_command`. */
export const OSWORLD_PKGS_PREFIX = "import pyautogui; import time; pyautogui.FAILSAFE = False; {command}";

/** Options of {@link OsworldClient}. */
export interface OsworldClientOptions {
  /** e.g. "http://127.0.0.1:5000". */
  baseUrl: string;
  /** Screenshot attempts. @default 3 */
  retryTimes?: number;
  /** Pause between screenshot attempts in ms. @default 5000 */
  retryIntervalMs?: number;
  /** Per-request timeout in ms. @default 30000 */
  timeoutMs?: number;
  /**
   * Chromium's remote-debugging endpoint as OSWorld's getters reach it (`http://<vm_ip>:<chromium_port>`,
   * port 9222 in the VM); the Chrome getters that speak CDP need it. @default none
   */
  chromiumUrl?: string;
}

/** Answer of /execute, /run_python and /run_bash_script. */
export interface OsworldExecResult {
  status: string;
  output?: string;
  error?: string;
  returncode?: number;
  message?: string;
}

/** True when the bytes start like a PNG or JPEG (OSWorld's `_is_valid_image_response`). */
export function isImage(bytes: Uint8Array): boolean {
  const png = bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  const jpg = bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  return png || jpg;
}

/** Talks to one OSWorld control server. */
export class OsworldClient {
  readonly baseUrl: string;
  /** See {@link OsworldClientOptions.chromiumUrl}. */
  readonly chromiumUrl?: string;
  private readonly retryTimes: number;
  private readonly retryIntervalMs: number;
  private readonly timeoutMs: number;

  constructor(options: OsworldClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/$/, "");
    this.chromiumUrl = options.chromiumUrl?.replace(/\/$/, "");
    this.retryTimes = options.retryTimes ?? 3;
    this.retryIntervalMs = options.retryIntervalMs ?? 5000;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  private async request(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetch(this.baseUrl + path, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (cause) {
      throw new AdapterError(`OSWorld server ${this.baseUrl}${path} unreachable: ${(cause as Error).message}`, {
        cause,
        retryable: true,
      });
    }
  }

  private async postJson<T>(path: string, body: unknown): Promise<T> {
    const res = await this.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new AdapterError(`OSWorld ${path} answered ${res.status} with non-JSON: ${text.slice(0, 200)}`, {
        retryable: res.status >= 500,
      });
    }
  }

  /** PNG of the screen, or undefined after `retryTimes` failed attempts. */
  async screenshot(): Promise<Buffer | undefined> {
    for (let attempt = 1; attempt <= this.retryTimes; attempt++) {
      try {
        const res = await this.request("/screenshot");
        if (res.ok) {
          const bytes = Buffer.from(await res.arrayBuffer());
          if (isImage(bytes)) return bytes;
          logger.warn({ attempt, type: res.headers.get("content-type") }, "OSWorld screenshot is not an image");
        } else logger.warn({ attempt, status: res.status }, "OSWorld screenshot failed");
      } catch (err) {
        logger.warn({ attempt, err: (err as Error).message }, "OSWorld screenshot error");
      }
      if (attempt < this.retryTimes) await new Promise((r) => setTimeout(r, this.retryIntervalMs));
    }
    return undefined;
  }

  /** Run pyautogui code the way OSWorld's `execute_python_command` does. */
  executePython(code: string): Promise<OsworldExecResult> {
    return this.execute(["python3", "-c", OSWORLD_PKGS_PREFIX.replace("{command}", code)]);
  }

  /** POST /execute with a command list (or a shell string with `shell: true`). */
  execute(command: string[] | string, shell = false): Promise<OsworldExecResult> {
    return this.postJson("/execute", { command, shell });
  }

  /** The accessibility tree (OSWorld answers `{ "AT": "<xml>" }`), or undefined. */
  async accessibilityTree(): Promise<string | undefined> {
    const res = await this.request("/accessibility");
    if (!res.ok) return undefined;
    const body = (await res.json()) as { AT?: string };
    return body.AT;
  }

  /** A file from the VM (POST /file with form field `file_path`), or undefined when missing. */
  async file(path: string): Promise<Buffer | undefined> {
    const res = await this.request("/file", { method: "POST", body: new URLSearchParams({ file_path: path }) });
    if (!res.ok) return undefined;
    return Buffer.from(await res.arrayBuffer());
  }

  /** The focused terminal's text (GET /terminal), or null when none is active or the call fails. */
  async terminalOutput(): Promise<string | null> {
    const res = await this.request("/terminal");
    if (!res.ok) return null;
    const body = (await res.json()) as { output?: string | null };
    return body.output ?? null;
  }

  /** "Linux", "Windows" or "Darwin". */
  async platform(): Promise<string> {
    return (await this.request("/platform")).text();
  }

  /** Screen size in pixels. */
  screenSize(): Promise<{ width: number; height: number }> {
    return this.postJson("/screen_size", {});
  }

  /** POST /run_python. */
  runPython(code: string): Promise<OsworldExecResult> {
    return this.postJson("/run_python", { code });
  }

  /** POST /run_bash_script. */
  runBashScript(script: string, timeoutSec = 30, workingDir?: string): Promise<OsworldExecResult> {
    return this.postJson("/run_bash_script", { script, timeout: timeoutSec, working_dir: workingDir });
  }

  /**
   * POST /setup/<kind> with a JSON body (launch, execute, open_file, activate_window...). OSWorld's
   * set-up endpoints answer plain text ("Window activated successfully") or JSON; both become a
   * result whose status says whether the HTTP status was 2xx.
   */
  async setup(kind: string, body: Record<string, unknown>): Promise<OsworldExecResult> {
    const res = await this.request(`/setup/${kind}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return replyResult(res);
  }

  /**
   * POST /setup/upload: a file into the VM (multipart `file_path` + `file_data`, as OSWorld's SetupController sends
   * it).
   */
  async upload(path: string, data: Buffer): Promise<OsworldExecResult> {
    const form = new FormData();
    form.append("file_path", path);
    form.append("file_data", new Blob([new Uint8Array(data)]), path.split("/").pop() || "file");
    return replyResult(await this.request("/setup/upload", { method: "POST", body: form }));
  }
}

/** A set-up reply, JSON or text, as a result (status "success" only for a 2xx with no error status). */
async function replyResult(res: Response): Promise<OsworldExecResult> {
  const text = await res.text();
  let body: Partial<OsworldExecResult> | undefined;
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) body = v as Partial<OsworldExecResult>;
  } catch {
    // a text reply
  }
  const ok = res.ok && (body?.status === undefined || body.status === "success");
  return { ...body, status: ok ? "success" : "error", message: body?.message ?? body?.error ?? text.slice(0, 500) };
}
