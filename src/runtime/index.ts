/**
 * Code-mode runtime: security profiles, limits, tool gateways and the sandbox backends.
 *
 * @module toolexec/runtime
 */
export { SECURITY_PROFILES } from './types.js';
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
