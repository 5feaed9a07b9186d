/**
 * Optional peer dependencies: the parts of retrace that only some users need (sharp, Playwright,
 * dockerode, PostgreSQL, SQLite, BullMQ, the model SDKs, LangChain, the CLI's report and progress
 * bar) are loaded with a dynamic `import()` the first time they are used, so the core installs and
 * loads without them. A missing one fails with one ConfigError line naming the package to install.
 */
import { createRequire } from "node:module";
import { ConfigError } from "./errors.ts";

/** Whether `err` says that `pkg` itself (not something inside it) could not be found. */
export function isMissingPackage(err: unknown, pkg: string): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || (e.code !== "ERR_MODULE_NOT_FOUND" && e.code !== "MODULE_NOT_FOUND")) return false;
  const message = String(e.message);
  return (
    message.includes(`'${pkg}'`) ||
    message.includes(`"${pkg}"`) ||
    message.includes(`'${pkg}/`) ||
    message.includes(`/node_modules/${pkg}/`)
  );
}

/** The one line a missing optional package fails with. */
export function missingPackageError(pkg: string, purpose: string, cause?: unknown): ConfigError {
  return new ConfigError(`${purpose} needs the optional package ${pkg}, which is not installed: npm install ${pkg}`, {
    cause,
  });
}

/**
 * Run `load` (a literal `import("pkg")`, so types and bundlers follow it) and turn "package not
 * found" into {@link missingPackageError}. Node caches the module, so later calls are cheap.
 */
export async function importOptional<T>(pkg: string, purpose: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isMissingPackage(err, pkg)) throw missingPackageError(pkg, purpose, err);
    throw err;
  }
}

const requireHere = createRequire(import.meta.url);

/**
 * The synchronous form for CommonJS packages (dockerode, pg, cli-progress) whose callers are
 * synchronous: `require` of a CommonJS module gives the same instance `import` would.
 */
export function requireOptional<T>(pkg: string, purpose: string): T {
  try {
    return requireHere(pkg) as T;
  } catch (err) {
    if (isMissingPackage(err, pkg)) throw missingPackageError(pkg, purpose, err);
    throw err;
  }
}

/** `make()` once, on the first call; later calls share its promise (a client built from an optional package). */
export function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}
