/**
 * What the runtime shares with the layers above it (code, exec, testing) and with its own tests,
 * but not with users: imported as `../runtime/internal.js`, never listed in package.json `exports`.
 *
 * @internal
 * @module
 */
export { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, isSecurityProfile, validateLimits, validateRequest } from './core/request.js';
export { runtimeError, runtimeErrors, withPartialResult, partialResultOf } from './core/errors.js';
export { abortError, stoppedError, throwIfAborted } from './core/stopping.js';
export { cloneJson, limitsEnforcedNone } from './core/errors.js';
export type { RuntimeErrorOptions } from './core/errors.js';
export { SNIPPET_LANGUAGES, isSnippetLanguage, prepareSnippet } from './core/snippet.js';
export type { PreparedSnippet, SnippetSource } from './core/snippet.js';
export { emptyChainResult } from './gateway/empty-chain.js';
export { toJsonSafe } from './gateway/wire.js';
export { assetPath } from './guest/assets.js';
export { PYTHON_PRELUDE_ASSET, pythonPreludePath, readPythonPrelude } from './guest/python/source.js';
export { NODE_GUEST_LOADER, heapLimitMiB, nodeGuestArgs, nodeGuestPath, nodeGuestSource } from './guest/node-guest.js';
export { runGuestSession } from './guest/session.js';
export type { GuestExit, GuestSessionOutcome } from './guest/session.js';
export type { LxcStatus, ProxmoxApiClient } from './backends/proxmox/index.js';
export type * from './backends/sandbox-client/public.js';
