/**
 * Optional peer dependencies (dockerode, typescript, the AI SDK, ...): imported on first use, the
 * import shared by every caller, and tried again on the next call after it failed (the package
 * may have been installed since).
 *
 * @internal
 * @module
 */

/** What a missing optional peer's error says: `<neededBy> needs the optional peer dependency "<name>" (npm install <name>)`. */
export function missingPeerMessage(neededBy: string, name: string): string {
  return `${neededBy} needs the optional peer dependency "${name}" (npm install ${name})`;
}

/**
 * Imports the package `name` by a specifier held in a variable, so that bundlers leave the import
 * to Node at run time: an app that never uses an optional peer bundles without having it installed
 * (a literal specifier fails the build of an app that lacks the package).
 */
export function importPeer(name: string): Promise<unknown> {
  return import(name) as Promise<unknown>;
}

/**
 * A loader of the optional peer `name`: imported (see {@link importPeer}) and handed to `pick` on
 * the first call; the promise is shared until it fails, and a failure is `fail(err)` (the next call
 * tries again: the package may have been installed since).
 */
export function optionalPeer<T>(name: string, pick: (module: unknown) => T, fail: (err: unknown) => Error): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= importPeer(name)
      .then(pick)
      .catch((err: unknown) => {
        pending = undefined;
        throw fail(err);
      }));
}

/** A module's default export when it has one (a CommonJS package imported from ESM), else the module itself. */
export function defaultExport(module: unknown): unknown {
  const fallback = (module as { default?: unknown } | null)?.default;
  return fallback ?? module;
}
