/**
 * The `kata` backend: a validated spec handed to a client you inject, which starts the node guest
 * in a Kata Containers VM sandbox and attaches its stdio; with the client contract.
 *
 * @module toolexec/runtime/kata
 */
export { DEFAULT_KATA_HYPERVISOR, DEFAULT_KATA_RUNTIME, KataBackend, createKataBackend, validateKataSpec } from './backend.js';
export type { KataBackendOptions, KataClient, KataConfig, KataSpec } from './backend.js';
export type * from '../sandbox-client/public.js';
