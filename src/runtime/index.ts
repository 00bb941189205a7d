/**
 * Code-mode runtime: security profiles, limits, tool gateways and the sandbox backends.
 *
 * @remarks
 * A {@link Runtime} routes a snippet to the backend of its security profile. Backends run the
 * snippet with a global `tools` object that reaches a {@link ToolGateway} — in process
 * ({@link createDirectGateway}) or across a process / container / network boundary over the
 * gateway protocol ({@link serveGateway} on the host, {@link createProxyGateway} on the client).
 * Limits on tool calls and chain steps are enforced by wrapping the gateway with
 * {@link createTracingGateway}, which also records every call.
 *
 * Each backend's factory is exported here; everything else a backend offers (its class, its
 * defaults, its client contract) is on its own subpath: `toolexec/runtime/wasm`, `/host`,
 * `/python` (Python on Pyodide), `/docker` (docker and gvisor), `/remote`, `/containerd`, `/kata`, `/firecracker`,
 * `/kubernetes`, `/proxmox`, `/temporal`.
 *
 * @module toolexec/runtime
 */
export { RUNTIME_BACKEND_KINDS, SECURITY_PROFILES } from './core/types.js';
export type {
  BackendInfo,
  BackendReadiness,
  ExecuteRequest,
  ExecuteResult,
  GatewayCallOptions,
  Limits,
  LimitsEnforced,
  NodeGuestBackendOptions,
  Runtime,
  RuntimeBackend,
  RuntimeBackendKind,
  RuntimeOptions,
  RuntimeWarmOptions,
  SecurityProfile,
  SnippetWarning,
  ToolCallRecord,
  ToolGateway,
} from './core/types.js';
export { DEFAULT_SECURITY_PROFILE, DefaultRuntime, createRuntime } from './core/runtime.js';
// --- gateways: in process, traced, and across a boundary ---
export { DirectGateway, createDirectGateway } from './gateway/direct.js';
export type { DirectGatewayOptions } from './gateway/direct.js';
export { createTracingGateway } from './gateway/tracing.js';
export type { TracingGateway, TracingGatewayOptions } from './gateway/tracing.js';
export { ProxyGateway, createProxyGateway } from './gateway/proxy.js';
export type { ProxyGatewayOptions, ProxyGatewayStats } from './gateway/proxy.js';
export { serveGateway } from './gateway/server.js';
export type { GatewayServer, GatewayServerStats, ServeGatewayOptions } from './gateway/server.js';
export type { GatewayConnection, IncomingItem } from './gateway/connection.js';
export { DEFAULT_MAX_MESSAGE_BYTES, createStreamConnection } from './gateway/stream-connection.js';
export type { StreamConnectionOptions } from './gateway/stream-connection.js';
export { createMessagePortConnection } from './gateway/message-port-connection.js';
export type { MessagePortConnectionOptions, MessagePortLike } from './gateway/message-port-connection.js';
export { GATEWAY_REQUEST_TYPES, deserializeError, serializeError } from './gateway/wire.js';
export type { GatewayReplyType, GatewayRequestType, WireError, WireMessage } from './gateway/wire.js';
// --- the backends' factories (the rest of each backend is on its subpath) ---
export { createWasmBackend, type WasmBackendOptions } from './backends/wasm/index.js';
export { createPythonBackend, type PythonBackendOptions } from './backends/python/index.js';
export type { PooledSandboxOptions } from './core/pooled-sandbox-options.js';
export { createUnsafeHostBackend, type UnsafeHostBackendOptions } from './backends/host/index.js';
export { createDockerBackend, createGvisorBackend, type DockerBackendOptions, type GvisorBackendOptions } from './backends/docker/index.js';
export { createRemoteBackend, type RemoteBackendOptions } from './backends/remote/index.js';
export { createContainerdBackend, type ContainerdBackendOptions } from './backends/containerd/index.js';
export { createKataBackend, type KataBackendOptions } from './backends/kata/index.js';
export { createFirecrackerBackend, type FirecrackerBackendOptions } from './backends/firecracker/index.js';
export { createKubernetesBackend, type KubernetesBackendOptions } from './backends/kubernetes/index.js';
export { createProxmoxBackend, type ProxmoxBackendOptions } from './backends/proxmox/index.js';
export { createTemporalBackend, type TemporalBackendOptions } from './backends/temporal/index.js';
