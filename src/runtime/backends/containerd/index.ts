/** The `containerd` runtime backend. */
export { ContainerdBackend, DEFAULT_CONTAINERD_NAMESPACE, DEFAULT_CONTAINERD_SOCKET, createContainerdBackend } from './backend.js';
export type { ContainerdBackendOptions, ContainerdClient, ContainerdSpec } from './backend.js';
