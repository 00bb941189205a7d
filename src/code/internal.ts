/**
 * What code mode shares with the layers above it (the exec facade) but not with users: imported
 * as `../code/internal.js`, never listed in package.json `exports`.
 *
 * @internal
 * @module
 */
export { snippetAbortError, withCodeResult } from './errors.js';
export { readCodeParams, readSnippetBounds, type SnippetBounds } from './options.js';
