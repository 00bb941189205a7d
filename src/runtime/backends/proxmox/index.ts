/** The `proxmox_lxc` runtime backend. */
export {
  DEFAULT_PROXMOX_POLL_INTERVAL_MS,
  DEFAULT_PROXMOX_START_TIMEOUT_MS,
  DEFAULT_PROXMOX_STOP_TIMEOUT_MS,
  ProxmoxBackend,
  createProxmoxBackend,
} from './backend.js';
export type { LxcStatus, ProxmoxApiClient, ProxmoxBackendOptions, ProxmoxExecSpec, ProxmoxRuntimeClient } from './backend.js';
