/** `retrace stand-in`: serves the stand-in until SIGTERM, prints its URL and a per-role count. */
import { afterEach, describe, expect, it } from "vitest";
import { retrace, stop, type CliProc } from "../../../helpers/cli-procs.ts";
import { cli } from "../../../experiments/helpers/model-roles.ts";

const procs: CliProc[] = [];
afterEach(async () => void (await Promise.all(procs.splice(0).map((p) => stop(p)))));

describe("retrace stand-in", () => {
  it("prints its base URL, answers over HTTP, and reports the requests it served when stopped", async () => {
    const p = retrace(["stand-in", "--port", "0", "--error-rate", "0.2", "--seed", "3"]);
    procs.push(p);
    const line = await p.waitFor(/listening at http:\/\/127\.0\.0\.1:\d+\/v1/, 90_000);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(line)![1];
    expect(line).toContain("simulated");
    const models = (await (await fetch(`${url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data[0].id).toBe("retrace-stand-in");
    const res = await fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "x",
        seed: 1,
        temperature: 0,
        messages: [
          {
            role: "user",
            content:
              'Reply with JSON: {"off_track": ...} Task given to the agent:\nsomething unknown\nThe agent has taken 1 step(s), numbered 0 to 0.',
          },
        ],
      }),
    });
    const body = (await res.json()) as { model: string; choices: Array<{ message: { content: string } }> };
    expect(body.model).toBe("retrace-stand-in");
    expect(JSON.parse(body.choices[0].message.content)).toMatchObject({ off_track: false, error_step: null });
    p.proc.kill("SIGTERM");
    // The last stdout chunk can arrive after the exit event: wait for the line itself.
    const stopped = await p.waitFor(/stopped after/, 30_000);
    await p.exited;
    expect(stopped).toMatch(/stopped after 1 request\(s\): detector 1/);
  }, 120_000);

  it("rejects a bad flag with one line saying what to fix", async () => {
    const r = await cli("stand-in", "--error-rate", "2");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--error-rate: expected a share from 0 to 1, e.g. 0.2, got "2"/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
