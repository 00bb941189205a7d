/** The `kata` runtime backend. */
export { DEFAULT_KATA_HYPERVISOR, DEFAULT_KATA_RUNTIME, KataBackend, createKataBackend, validateKataSpec } from './backend.js';
export type { KataBackendOptions, KataClient, KataSpec } from './backend.js';
