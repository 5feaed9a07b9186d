/**
 * Each workspace package's README has the install line the consumer test installs
 * (package-readme.ts): the package itself first, and for an integration its SDK (the peers the
 * package's guard names, SDK_PEERS; the umbrella: itself alone). The consumer test then proves the
 * line is enough.
 */
import { describe, expect, it } from "vitest";
import { PACKAGE_NAME, WORKSPACE } from "../../experiments/bench/consumer-project.ts";
import { SDK_PEERS } from "../../packages/sdk-shared/src/peer-guard.ts";
import { packageInstallLine, parseInstallLine } from "./package-readme.ts";

describe("the packages' README install lines", () => {
  it.each([...WORKSPACE.keys()])("%s: one npm install line, the package first, its SDK peers named", (name) => {
    const line = packageInstallLine(name);
    expect(line.workspace[0]).toBe(name);
    // the umbrella has every SDK as an optional peer and installs none: its README's table says which entry needs which
    if (name === PACKAGE_NAME) return;
    const sdks = Object.keys(WORKSPACE.get(name)!.peerDependencies).filter((p) => p in SDK_PEERS);
    for (const sdk of sdks) expect(Object.keys(line.others), `${name} installs ${sdk}`).toContain(sdk);
  });

  it("reads the first code block of the Install section, versions and workspace names apart", () => {
    const readme =
      '# x\n\ntext\n\n## Install\n\nSome words.\n\n```bash\nnpm install @retrace-cua/stagehand "@browserbasehq/stagehand@3" playwright-core\n```\n\n```bash\nnpm install other\n```\n\n## Next\n';
    expect(parseInstallLine(readme, "x")).toEqual({
      line: 'npm install @retrace-cua/stagehand "@browserbasehq/stagehand@3" playwright-core',
      workspace: ["@retrace-cua/stagehand"],
      others: { "@browserbasehq/stagehand": "3", "playwright-core": undefined },
    });
    expect(() => parseInstallLine("# x\n\n## Usage\n", "x")).toThrow(/no "## Install" section/);
    expect(() => parseInstallLine("## Install\n\n```bash\nnpm ci\n```\n", "x")).toThrow(/not one `npm install/);
  });
});
