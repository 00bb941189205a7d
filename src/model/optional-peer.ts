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
 * A loader of an optional peer: `load` (a literal `import('<name>')`, so bundlers see it) runs on
 * the first call; its promise is shared until it fails, and a failure is `fail(err)`.
 */
export function optionalPeer<T>(load: () => Promise<T>, fail: (err: unknown) => Error): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw fail(err);
    }));
}
