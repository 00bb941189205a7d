/**
 * The container backends: `docker` (one hardened container per run), `gvisor` (the same under
 * gVisor's `runsc`), their warm pool, and the local sandbox image builders (node, and Python for
 * `language: 'python'`).
 *
 * @module toolexec/runtime/docker
 */
export { ContainerSandboxBackend, DockerBackend, createDockerBackend } from './docker-backend.js';
export type { DockerBackendOptions, DockerPoolOptions } from './options.js';
export { DEFAULT_GVISOR_RUNTIME, GvisorBackend, createGvisorBackend } from './gvisor.js';
export type { GvisorBackendOptions } from './gvisor.js';
export {
  DEFAULT_DOCKER_LIMITS,
  MIN_CPU_QUOTA_MS,
  MIN_MEMORY_BYTES,
  SANDBOX_LABEL,
  containerHeapBytes,
  resolveContainerLimits,
} from './container-spec.js';
export type { ContainerSpecInput, DockerContainerLimits, ResolvedContainerLimits } from './container-spec.js';
export { MAX_WARM_POOL_SIZE } from './warm-pool.js';
export type { WarmPoolStats } from './warm-pool.js';
export { DEFAULT_SANDBOX_IMAGE, SANDBOX_IMAGE_LABEL, SANDBOX_NODE_PATH, SANDBOX_USER_ID } from './sandbox-image.js';
export { buildSandboxImage, sharedLibrariesOf } from './sandbox-image.js';
export type { BuildSandboxImageOptions, SandboxImageInfo } from './sandbox-image.js';
export { PYTHON_SANDBOX_IMAGE_LABEL, SANDBOX_PYTHON_PATH, buildPythonSandboxImage, hostPythonSandboxImage } from './python-image.js';
export type { BuildPythonSandboxImageOptions, PythonSandboxImageInfo } from './python-image.js';
export { CONTAINER_LANGUAGES } from './container-guest.js';
export type { DockerConnectionOptions, DockerodeInstance, DockerodeKey, DockerodeOptions } from './docker-client.js';
