/**
 * The install line of a package's README (packages/<name>/README.md, experiments/README.md): the
 * first fenced code block of its "## Install" section holds one `npm install ...` line, what a user
 * of that package alone needs (for an integration: the package and its one SDK; plus what the
 * package's public .d.ts files import, for a project compiling with skipLibCheck off). The consumer
 * test installs exactly that (consumer.int.test.ts), so a README that lists too little fails there.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, WORKSPACE } from "../../experiments/bench/consumer-project.ts";

/** The line's packages: those of the workspace (installed from their tarballs), and the others with the version written, if any. */
export interface InstallLine {
  line: string;
  workspace: string[];
  others: Record<string, string | undefined>;
}

/** The README's install line of the workspace package `name`; throws when the README has none. */
export function packageInstallLine(name: string): InstallLine {
  const pkg = WORKSPACE.get(name);
  if (!pkg) throw new Error(`${name} is not a package of the workspace`);
  const file = join(ROOT, pkg.dir, "README.md");
  return parseInstallLine(readFileSync(file, "utf8"), file);
}

/** The install line of a README's text (`where` names it in errors). */
export function parseInstallLine(readme: string, where: string): InstallLine {
  const section = /^## Install\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1];
  if (section === undefined) throw new Error(`${where}: no "## Install" section`);
  const block = /^```[a-z]*\n([\s\S]*?)^```/m.exec(section)?.[1];
  if (block === undefined) throw new Error(`${where}: the "## Install" section has no fenced code block`);
  const line = block.trim();
  if (!/^npm install [^\n]+$/.test(line))
    throw new Error(`${where}: the "## Install" code block is not one \`npm install ...\` line: ${line}`);
  const workspace: string[] = [];
  const others: Record<string, string | undefined> = {};
  for (const raw of line.slice("npm install ".length).trim().split(/\s+/)) {
    const spec = raw.replace(/^["']|["']$/g, "");
    if (spec.startsWith("-")) throw new Error(`${where}: the install line has an option (${spec})`);
    const at = spec.indexOf("@", 1);
    const dep = at === -1 ? spec : spec.slice(0, at);
    const version = at === -1 ? undefined : spec.slice(at + 1);
    if (WORKSPACE.has(dep)) {
      if (version !== undefined) throw new Error(`${where}: ${dep} is installed from its tarball, without a version`);
      workspace.push(dep);
    } else others[dep] = version;
  }
  return { line, workspace, others };
}
