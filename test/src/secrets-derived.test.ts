/**
 * Rule "redaction covers error bodies and everything derived from them" (issue 41): a key a
 * server echoes into an error body can reach stderr, run.json or traj.jsonl base64-encoded (an
 * error body kept as a base64 blob, an image data URL). A registered secret's base64 and base64url
 * forms are redacted at every byte offset inside a longer base64 text.
 */
import { describe, expect, it } from "vitest";
import { base64Forms, redactText, registerSecret } from "../../packages/core/src/secrets.ts";

const KEY = "zq7-Secret-Key-For-Derived-Forms-9921"; // no sk- prefix: only registration finds it

describe("derived forms of a registered secret", () => {
  it("redacts the key's base64 and base64url at offsets 0, 1 and 2 inside longer text", () => {
    registerSecret(KEY);
    for (const prefix of ["", "a", "ab", "abc", '{"error":"echo: ']) {
      const body = Buffer.from(`${prefix}${KEY} and more text after it`, "utf8");
      for (const text of [body.toString("base64"), body.toString("base64url")]) {
        const out = redactText(`data:application/json;base64,${text}`);
        expect(out).toContain("[redacted]");
        expect(Buffer.from(out.split(",")[1].replace(/\[redacted\]/g, ""), "base64").toString("utf8")).not.toContain(
          KEY.slice(4, 30),
        );
      }
    }
    expect(redactText(`plain ${KEY} echo`)).toBe("plain [redacted] echo");
  });

  it("gives three offsets' forms, each at least 8 characters, none for a short value", () => {
    expect(base64Forms(KEY).length).toBeGreaterThanOrEqual(3);
    expect(base64Forms(KEY).every((f) => f.length >= 8)).toBe(true);
    expect(base64Forms("abc")).toEqual([]);
  });
});
