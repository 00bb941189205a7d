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
export { RUNTIME_BACKEND_KINDS, SECURITY_PROFILES } from './types.js';
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
} from './types.js';
export { DEFAULT_SECURITY_PROFILE, DefaultRuntime, createRuntime } from './runtime.js';
export {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  LIMIT_FIELDS,
  effectiveMaxOutputBytes,
  effectiveTimeoutMs,
  isSecurityProfile,
  validateLimits,
  validateRequest,
} from './request.js';
export { prepareSnippet } from './snippet.js';
export type { PreparedSnippet, SnippetSource } from './snippet.js';
export {
  abortError,
  cloneJson,
  limitsEnforcedNone,
  partialResultOf,
  runtimeError,
  throwIfAborted,
  withPartialResult,
} from './errors.js';
export type { RuntimeErrorOptions } from './errors.js';
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
export { UnsafeHostBackend, createUnsafeHostBackend } from './backends/unsafe-host.js';
export type { UnsafeHostBackendOptions } from './backends/unsafe-host.js';
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
export type {
  CappedModule,
  DeclaredMemory,
  ResolvedWasmOptions,
  WasmBackendOptions,
  WasmPoolStats,
} from './backends/wasm/index.js';
