/**
 * Every relative link in README.md and docs/ resolves to a file or folder of the repository
 * (issue 29: docs/cli.md linked `docs/docs/...`). Web links and in-page anchors are not checked;
 * a link's `#anchor` is dropped before resolving its path.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? markdownFiles(p) : n.endsWith(".md") ? [p] : [];
  });
}

/**
 * The link targets of a markdown file (inline links and images, reference definitions), code spans and blocks left out.
 */
function relativeLinks(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const targets = [
    ...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
    ...prose.matchAll(/^\s*\[[^\]]+\]:\s+(\S+)/gm),
  ].map((m) => m[1]);
  return targets.filter((t) => !/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(t));
}

describe("relative links in README and docs", () => {
  const files = [join(root, "README.md"), ...markdownFiles(join(root, "docs"))];

  it("finds the links it checks (the extractor is not blind)", () => {
    expect(relativeLinks("see [a](docs/x.md#y), ![i](img.png) and `[no](z.md)`, [web](https://e.org)")).toEqual([
      "docs/x.md#y",
      "img.png",
    ]);
    expect(files.length).toBeGreaterThan(3);
    expect(files.flatMap((f) => relativeLinks(readFileSync(f, "utf8"))).length).toBeGreaterThan(20);
  });

  it("resolves every relative link to an existing path", () => {
    const broken: string[] = [];
    for (const f of files)
      for (const link of relativeLinks(readFileSync(f, "utf8"))) {
        const path = decodeURIComponent(link.split("#")[0]);
        if (!path) continue;
        if (!existsSync(resolve(dirname(f), path))) broken.push(`${relative(root, f)}: ${link}`);
      }
    expect(broken).toEqual([]);
  });
});
