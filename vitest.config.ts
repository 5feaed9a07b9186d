import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// "retrace-dev" (package.json exports): the repository's tests import the package by its name
// and get the TypeScript sources; users get dist/.
export default defineConfig({
  resolve: { conditions: ["retrace-dev", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["retrace-dev", ...defaultServerConditions] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
