/**
 * The `unsafe_host` backend: snippets run in a plain node child process on the host, for the
 * `dev` profile only.
 *
 * @module toolexec/runtime/host
 */
export { UnsafeHostBackend, createUnsafeHostBackend } from './backend.js';
export type { UnsafeHostBackendOptions } from './backend.js';
