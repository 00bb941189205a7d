/**
 * Backends: sources of tools (in-process handler sets, MCP servers, APIs) behind one interface,
 * a registry of them, an aggregator that lists and runs their tools by `backend:tool`, and an
 * in-process {@link LocalBackend}.
 *
 * @remarks
 * Backends connect to the runner: {@link registerBackendTools} registers every enabled backend's
 * tools in an index, bound to the local backend `backend:tool`, and a runner given the registry
 * (`createRunner({ index, backends: registry })`) dispatches those calls to `backend.execute`, so
 * `runner.run('backend:tool', args)` validates and runs them. This layer imports only `toolexec/model`.
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
  BackendProgressListener,
  BackendToolContext,
  BackendToolHandler,
  BridgedHandler,
  HandlerLookup,
  BackendToolDefinition,
  ToolRegistrar,
} from './types.js';
