/**
 * The `firecracker` backend: a validated microVM spec handed to a client you inject, which boots a
 * Firecracker microVM, runs the node guest in it and bridges its stdio; with the client contract.
 *
 * @module toolexec/runtime/firecracker
 */
export {
  DEFAULT_FIRECRACKER_BINARY,
  DEFAULT_FIRECRACKER_MEM_MB,
  DEFAULT_FIRECRACKER_VCPUS,
  FirecrackerBackend,
  createFirecrackerBackend,
  validateMicroVMSpec,
} from './backend.js';
export type {
  FirecrackerBackendOptions,
  FirecrackerClient,
  FirecrackerConfig,
  MicroVMConfig,
  MicroVMResources,
  MicroVMSpec,
} from './backend.js';
export type * from '../sandbox-client/public.js';
