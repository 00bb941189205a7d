/**
 * Backends: sources of tools (in-process handler sets, MCP servers, APIs) behind one interface,
 * a registry of them, an aggregator that lists and runs their tools by `backend:tool`, and an
 * in-process {@link LocalBackend}.
 *
 * @remarks
 * Unlike Go, backends connect to the runner: {@link BackendRegistry.localRegistry} serves as the
 * runner's `local` option, and {@link registerBackendTools} registers every enabled backend's
 * tools in an index bound to it, so `runner.run('backend:tool', args)` validates and runs them.
 * This layer imports only `toolexec/model`.
 *
 * @module toolexec/backend
 */
export { BackendRegistry, createBackendRegistry } from './registry.js';
export { BackendAggregator, createAggregator, registerBackendTools } from './aggregator.js';
export { LocalBackend, createLocalBackend } from './local-backend.js';
export { formatBackendToolId, parseBackendToolId } from './tool-id.js';
export type { BackendToolId } from './tool-id.js';
export type {
  Backend,
  BackendCallOptions,
  BackendToolContext,
  BackendToolHandler,
  BridgedHandler,
  HandlerLookup,
  LocalToolDefinition,
  ToolRegistrar,
} from './types.js';
