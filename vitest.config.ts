import { defineConfig } from "vitest/config";

// The repository's tests import the workspace packages (@retrace-cua/*, and the umbrella retrace-cua) by
// their names and get the TypeScript sources: each package's "retrace-dev" export condition (users,
// without it, get dist/). npm links the workspace packages into node_modules. Not "module": packages
// such as @opentelemetry/api would then resolve to ESM builds that Node cannot load unbundled.
export default defineConfig({
  ssr: { resolve: { conditions: ["retrace-dev", "node", "development|production"] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
