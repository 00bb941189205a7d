/**
 * The `containerd` backend: a validated container spec handed to a client you inject, which starts
 * the node guest in a containerd task and attaches its stdio; with the client contract.
 *
 * @module toolexec/runtime/containerd
 */
export { ContainerdBackend, DEFAULT_CONTAINERD_NAMESPACE, DEFAULT_CONTAINERD_SOCKET, createContainerdBackend } from './backend.js';
export type { ContainerdBackendOptions, ContainerdClient, ContainerdConfig, ContainerdSpec } from './backend.js';
export { validateContainerSpec } from '../sandbox-client/validate.js';
export type * from '../sandbox-client/public.js';
