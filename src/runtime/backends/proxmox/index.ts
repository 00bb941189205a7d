/**
 * The `proxmox_lxc` backend: makes sure a Proxmox LXC container is running, then runs the snippet
 * inside it through a client you inject (or another backend); with the client contract.
 *
 * @module toolexec/runtime/proxmox
 */
export {
  DEFAULT_PROXMOX_POLL_INTERVAL_MS,
  DEFAULT_PROXMOX_START_TIMEOUT_MS,
  DEFAULT_PROXMOX_STOP_TIMEOUT_MS,
  ProxmoxBackend,
  createProxmoxBackend,
} from './backend.js';
export type {
  LxcStatus,
  ProxmoxApiClient,
  ProxmoxBackendOptions,
  ProxmoxConfig,
  ProxmoxExecSpec,
  ProxmoxRuntimeClient,
} from './backend.js';
export type * from '../sandbox-client/public.js';
