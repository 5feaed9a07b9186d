#!/usr/bin/env node
// npm run build: compiles every workspace package in one TypeScript program (tsconfig.build.json, into
// .build/), then moves each package's output into its own dist/ (packages/<name>/src -> packages/<name>/dist,
// experiments -> experiments/dist). JSON data next to the sources (the stand-in's skills.json) is copied.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const build = join(root, ".build");
const packages = readdirSync(join(root, "packages")).filter((p) => existsSync(join(root, "packages", p, "src")));
rmSync(build, { recursive: true, force: true });
for (const p of packages) rmSync(join(root, "packages", p, "dist"), { recursive: true, force: true });
rmSync(join(root, "experiments", "dist"), { recursive: true, force: true });
const tsc = join(dirname(fileURLToPath(import.meta.resolve("typescript/package.json"))), "bin", "tsc");
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit", cwd: root });

function copyJson(from, to) {
  for (const name of readdirSync(from)) {
    const p = join(from, name);
    if (name === "node_modules" || name === "dist") continue;
    if (statSync(p).isDirectory()) copyJson(p, join(to, name));
    else if (name.endsWith(".json") && name !== "package.json" && !name.startsWith("tsconfig"))
      cpSync(p, join(to, name));
  }
}
for (const p of packages) {
  const out = join(build, "packages", p, "src");
  const dist = join(root, "packages", p, "dist");
  if (!existsSync(out)) {
    process.stderr.write(`build: nothing was emitted for packages/${p}/src; is it in tsconfig.build.json's include?\n`);
    process.exit(1);
  }
  renameSync(out, dist);
  copyJson(join(root, "packages", p, "src"), dist);
}
renameSync(join(build, "experiments"), join(root, "experiments", "dist"));
rmSync(build, { recursive: true, force: true });
process.stdout.write(`built ${packages.length + 1} packages\n`);
