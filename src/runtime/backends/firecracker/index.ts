/** The `firecracker` runtime backend. */
export {
  DEFAULT_FIRECRACKER_BINARY,
  DEFAULT_FIRECRACKER_MEM_MB,
  DEFAULT_FIRECRACKER_VCPUS,
  FirecrackerBackend,
  createFirecrackerBackend,
  validateMicroVMSpec,
} from './backend.js';
export type { FirecrackerBackendOptions, FirecrackerClient, MicroVMConfig, MicroVMResources, MicroVMSpec } from './backend.js';
