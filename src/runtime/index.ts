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
  Runtime,
  RuntimeBackend,
  RuntimeBackendKind,
  RuntimeOptions,
  SecurityProfile,
  ToolCallRecord,
  ToolGateway,
} from './core/types.js';
export { DEFAULT_SECURITY_PROFILE, DefaultRuntime, createRuntime } from './core/runtime.js';
export {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  LIMIT_FIELDS,
  effectiveMaxOutputBytes,
  effectiveTimeoutMs,
  isSecurityProfile,
  validateLimits,
  validateRequest,
} from './core/request.js';
export { prepareSnippet } from './core/snippet.js';
export type { PreparedSnippet, SnippetSource } from './core/snippet.js';
export {
  abortError,
  cloneJson,
  limitsEnforcedNone,
  partialResultOf,
  runtimeError,
  throwIfAborted,
  withPartialResult,
} from './core/errors.js';
export type { RuntimeErrorOptions } from './core/errors.js';
export type { RunFailure } from './core/failure.js';
export { createTracingGateway } from './gateway/tracing.js';
export type { TracingGateway, TracingGatewayOptions } from './gateway/tracing.js';
export { DirectGateway, createDirectGateway } from './gateway/direct.js';
export type { DirectGatewayOptions } from './gateway/direct.js';
export { emptyChainResult } from './gateway/empty-chain.js';
export {
  GATEWAY_REQUEST_TYPES,
  connectionClosedError,
  deserializeError,
  deserializeStep,
  isGatewayRequestType,
  protocolError,
  serializeError,
  serializeStep,
  toJsonSafe,
} from './gateway/wire.js';
export type { GatewayReplyType, GatewayRequestType, WireError, WireMessage } from './gateway/wire.js';
export { AsyncQueue } from './gateway/connection.js';
export type { GatewayConnection, IncomingItem } from './gateway/connection.js';
export { DEFAULT_MAX_MESSAGE_BYTES, createStreamConnection } from './gateway/stream-connection.js';
export type { StreamConnectionOptions } from './gateway/stream-connection.js';
export { createMessagePortConnection } from './gateway/message-port-connection.js';
export type { MessagePortConnectionOptions, MessagePortLike } from './gateway/message-port-connection.js';
export { ProxyGateway, createProxyGateway } from './gateway/proxy.js';
export type { ProxyGatewayOptions, ProxyGatewayStats } from './gateway/proxy.js';
export { serveGateway } from './gateway/server.js';
export type { GatewayServer, GatewayServerStats, ServeGatewayOptions } from './gateway/server.js';
export { assetPath } from './assets.js';
export {
  NODE_GUEST_ASSET,
  NODE_GUEST_LOADER,
  heapLimitMiB,
  nodeGuestArgs,
  nodeGuestPath,
  nodeGuestProgramMessage,
  nodeGuestSource,
} from './guest/node-guest.js';
export type { NodeGuestArgsOptions } from './guest/node-guest.js';
export { runGuestSession } from './guest/session.js';
export type { GuestExit, GuestFailure, GuestSessionOptions, GuestSessionOutcome } from './guest/session.js';
export { UnsafeHostBackend, createUnsafeHostBackend } from './backends/host/index.js';
export type { UnsafeHostBackendOptions } from './backends/host/index.js';
export {
  DEFAULT_WASM_MAX_STACK_BYTES,
  DEFAULT_WASM_MEMORY_BYTES,
  WASM_MAGIC,
  WasmBackend,
  capModuleMemory,
  createWasmBackend,
  resolveWasmOptions,
  wasiModuleBytes,
} from './backends/wasm/index.js';
export type { CappedModule, DeclaredMemory, ResolvedWasmOptions, WasmBackendOptions, WasmPoolStats } from './backends/wasm/index.js';
// --- spec backends (containerd, kata, firecracker, kubernetes, proxmox_lxc), temporal, remote ---
export {
  CPU_PERIOD_US,
  DEFAULT_KILL_TIMEOUT_MS,
  DEFAULT_SPEC_SANDBOX_IMAGE,
  GUEST_PROTOCOL,
  GUEST_WORKING_DIR,
  SANDBOX_USER,
  SpecBackend,
  buildGuestSpec,
  containerEnforced,
  containerResources,
  containerSecurity,
  newRunId,
  resolveProfile,
  validateContainerSpec,
  validateGuest,
  validateResources,
  validateSecurity,
} from './backends/sandbox-client/index.js';
export type {
  BackendLogger,
  BaseSandboxSpec,
  ContainerSecurityOptions,
  EnforcedResources,
  GuestSpec,
  GuestSpecOptions,
  HealthChecker,
  ImageResolver,
  SandboxCapabilities,
  SandboxClient,
  SandboxProcess,
  SandboxResources,
  SandboxSecurity,
  ResolvedCommonOptions,
  SandboxStartOptions,
  SpecBackendCommonOptions,
  SpecInput,
} from './backends/sandbox-client/index.js';
export {
  ContainerdBackend,
  DEFAULT_CONTAINERD_NAMESPACE,
  DEFAULT_CONTAINERD_SOCKET,
  createContainerdBackend,
} from './backends/containerd/index.js';
export type { ContainerdBackendOptions, ContainerdClient, ContainerdSpec } from './backends/containerd/index.js';
export { DEFAULT_KATA_HYPERVISOR, DEFAULT_KATA_RUNTIME, KataBackend, createKataBackend, validateKataSpec } from './backends/kata/index.js';
export type { KataBackendOptions, KataClient, KataSpec } from './backends/kata/index.js';
export {
  DEFAULT_FIRECRACKER_BINARY,
  DEFAULT_FIRECRACKER_MEM_MB,
  DEFAULT_FIRECRACKER_VCPUS,
  FirecrackerBackend,
  createFirecrackerBackend,
  validateMicroVMSpec,
} from './backends/firecracker/index.js';
export type {
  FirecrackerBackendOptions,
  FirecrackerClient,
  MicroVMConfig,
  MicroVMResources,
  MicroVMSpec,
} from './backends/firecracker/index.js';
export {
  DEFAULT_KUBERNETES_NAMESPACE,
  DEFAULT_KUBERNETES_TIMEOUT_MS,
  DEFAULT_KUBERNETES_TMP_BYTES,
  GUEST_CONTAINER_NAME,
  KUBERNETES_USER,
  KubernetesBackend,
  NETWORK_LABEL,
  buildKubernetesNetworkPolicy,
  buildKubernetesPod,
  createKubernetesBackend,
  validateKubernetesSpec,
} from './backends/kubernetes/index.js';
export type {
  KubernetesBackendOptions,
  KubernetesClient,
  KubernetesContainerManifest,
  KubernetesNetworkPolicyManifest,
  KubernetesPodInput,
  KubernetesPodManifest,
  KubernetesPodSpec,
  KubernetesResourceList,
  KubernetesResources,
  KubernetesSecurity,
} from './backends/kubernetes/index.js';
export {
  DEFAULT_PROXMOX_POLL_INTERVAL_MS,
  DEFAULT_PROXMOX_START_TIMEOUT_MS,
  DEFAULT_PROXMOX_STOP_TIMEOUT_MS,
  ProxmoxBackend,
  createProxmoxBackend,
} from './backends/proxmox/index.js';
export type {
  LxcStatus,
  ProxmoxApiClient,
  ProxmoxBackendOptions,
  ProxmoxExecSpec,
  ProxmoxRuntimeClient,
} from './backends/proxmox/index.js';
export {
  DEFAULT_TEMPORAL_HOST_PORT,
  DEFAULT_TEMPORAL_NAMESPACE,
  DEFAULT_TEMPORAL_TASK_QUEUE,
  DEFAULT_TEMPORAL_WORKFLOW_ID_PREFIX,
  TemporalBackend,
  createTemporalBackend,
} from './backends/temporal/index.js';
export type { TemporalBackendOptions } from './backends/temporal/index.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_REMOTE_CONNECT_TIMEOUT_MS,
  DEFAULT_REMOTE_TIMEOUT_OVERHEAD_MS,
  DEFAULT_REPLAY_WINDOW_MS,
  MIN_SECRET_BYTES,
  REMOTE_HEADERS,
  REMOTE_PROTOCOL,
  RemoteBackend,
  canonicalRemoteRequest,
  createRemoteBackend,
  createRemoteRuntimeHandler,
  createSignedConnection,
  deriveSessionKey,
  executeMessage,
  messageMac,
  newNonce,
  parseExecuteMessage,
  remoteRequestHeaders,
  signRemoteRequest,
  verifyRemoteSignature,
} from './backends/remote/index.js';
export type {
  RemoteBackendOptions,
  RemoteExecuteMessage,
  RemoteExecutePayload,
  RemoteResultPayload,
  RemoteRuntimeHandler,
  RemoteRuntimeHandlerOptions,
  RemoteRuntimeHandlerStats,
  RemoteSecret,
  RemoteSignedFields,
  SignedConnection,
  SignedConnectionOptions,
} from './backends/remote/index.js';
export {
  ContainerSandboxBackend,
  DEFAULT_DOCKER_LIMITS,
  DEFAULT_GVISOR_RUNTIME,
  DEFAULT_SANDBOX_IMAGE,
  DockerBackend,
  GvisorBackend,
  MAX_WARM_POOL_SIZE,
  MIN_CPU_QUOTA_MS,
  MIN_MEMORY_BYTES,
  SANDBOX_IMAGE_LABEL,
  SANDBOX_LABEL,
  SANDBOX_NODE_PATH,
  SANDBOX_USER_ID,
  buildSandboxImage,
  containerCreateOptions,
  containerHeapBytes,
  createDockerBackend,
  createGvisorBackend,
  resolveContainerLimits,
  sharedLibrariesOf,
} from './backends/docker/index.js';
export type {
  BuildSandboxImageOptions,
  ContainerSpecInput,
  DockerBackendOptions,
  DockerConnectionOptions,
  DockerContainerLimits,
  DockerPoolOptions,
  GvisorBackendOptions,
  ResolvedContainerLimits,
  SandboxImageInfo,
  WarmPoolStats,
} from './backends/docker/index.js';
