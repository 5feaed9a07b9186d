import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The repository's tests import the package by its name and get the TypeScript sources (each
// entry's "retrace-dev" condition in package.json exports); users get dist/. An alias per entry,
// so that no other package's resolution changes.
const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  name: string;
  exports: Record<string, string | Record<string, string>>;
};
const alias = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === "object" && target["retrace-dev"])
  .map(([key, target]) => ({
    find: new RegExp(`^${(key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`).replace(/[/.-]/g, "\\$&")}$`),
    replacement: fileURLToPath(new URL((target as Record<string, string>)["retrace-dev"], import.meta.url)),
  }));

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
