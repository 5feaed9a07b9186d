/**
 * The bad-input corpus (issue 12), model and task text: function rows feed model/task text to the
 * parsers, which must refuse it with one line naming what is wrong, never run it.
 */
import { describe, expect, it } from "vitest";
import { FUNCTION_ROWS } from "./helpers/bad-input-function-rows.ts";

describe("model and task text in the corpus", () => {
  it.each(FUNCTION_ROWS.map((r) => [r.name, r] as const))("%s: refused with one line", (_name, row) => {
    const message = row.run();
    expect(message).not.toMatch(/^no error|^accepted/);
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toMatch(row.error);
  });
});
