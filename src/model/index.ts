/**
 * The canonical tool model: tools and their IDs, tags, backend bindings, JSON Schema validation
 * and the error base shared by every layer.
 *
 * @module toolexec/model
 */
export {
  ERROR_CODES,
  ERROR_STATUS,
  ToolexecError,
  errorMessage,
  errorStatus,
  findError,
  hasErrorCode,
  isErrorCode,
  toErrorShape,
} from './errors.js';
export type { ErrorCauseShape, ErrorCode, ErrorShape, ToolexecErrorOptions } from './errors.js';
export type {
  BaseErrorDetails,
  CodeExecutionErrorDetails,
  ExecutionErrorDetails,
  InvalidToolIdErrorDetails,
  LimitErrorDetails,
  LimitName,
  ReasonErrorDetails,
  ServerUnavailableErrorDetails,
  ToolNotFoundErrorDetails,
  ToolexecErrorDetails,
  ValidationErrorDetails,
} from './error-details.js';
export {
  MAX_TOOL_NAME_LENGTH,
  MCP_VERSION,
  cloneTool,
  defineTool,
  parseToolId,
  parsedVersion,
  toMcpTool,
  toolId,
  truncateUtf8,
  utf8ByteLength,
  validateTool,
} from './tool.js';
export type { McpTool, ParsedToolId, ParsedVersion, Tool } from './tool.js';
export { MAX_TAGS, MAX_TAG_LENGTH, normalizeTags } from './tags.js';
export { BACKEND_KINDS, backendIdentity, describeBackend, localBackend, mcpBackend, providerBackend, validateBackend } from './backend.js';
export type { BackendKind, ToolBackend } from './backend.js';
export { DIALECT_2020_12, DIALECT_DRAFT_07 } from './schema.js';
export type { ContractViolation, SchemaValidator, SchemaValidatorOptions, ToolSchemaChecks, ViolationCode } from './schema.js';
export { JsonSchemaValidator, createSchemaValidator } from './schema-validator.js';
export { DEFAULT_MAX_CACHED_SCHEMAS, DEFAULT_MAX_VIOLATIONS } from './schema-validator-options.js';
export { SchemaValidationError } from './schema-validation-error.js';
export type { SchemaValidationCode, SchemaValidationErrorOptions } from './schema-validation-error.js';
