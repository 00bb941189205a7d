import { createSchemaValidator, type SchemaValidator, type Tool, type ToolBackend } from '../model/index.js';
import { defaultBackendSelector, type ToolIndex } from '../discovery/index.js';
import type { BackendRegistry } from '../backend/index.js';
import { describeValue, guardCall, layerErrors } from '../model/internal.js';
import { DEFAULT_RESOLVED_RETRY, readRetryPolicy, type ResolvedRetryPolicy } from './retry.js';
import { localRegistryOf } from './local-registry.js';
import { telemetryConfigOf, type TelemetryConfig } from './telemetry-config.js';

const errors = layerErrors('run');
import type { AttemptEvent, LocalRegistry, McpExecutor, ProviderExecutor, RunWarning, RunnerOptions } from './types.js';

/** How output is validated: not at all, failing the call, or reporting a warning. */
export type OutputValidationMode = 'off' | 'error' | 'warn';

/**
 * {@link RunnerOptions} with every default filled in: the one place defaults are decided.
 *
 * @internal
 */
export interface ResolvedRunnerOptions {
  index: ToolIndex | undefined;
  toolResolver: ((id: string) => Tool | undefined | Promise<Tool | undefined>) | undefined;
  backendsResolver: ((id: string) => ToolBackend[] | undefined | Promise<ToolBackend[] | undefined>) | undefined;
  backendSelector: (backends: ToolBackend[]) => ToolBackend;
  validator: SchemaValidator;
  validateInput: boolean;
  validateOutput: OutputValidationMode;
  onWarning: ((warning: RunWarning) => void) | undefined;
  local: LocalRegistry | undefined;
  backends: BackendRegistry | undefined;
  mcp: McpExecutor | undefined;
  provider: ProviderExecutor | undefined;
  /** Redaction and event sink (the facade's, or the defaults). */
  telemetry: TelemetryConfig;
  /** The retry policy of annotated tools; `false`: none. */
  retry: ResolvedRetryPolicy | false;
  onAttempt: ((event: AttemptEvent) => void) | undefined;
}

/**
 * Fills the defaults of {@link RunnerOptions}: the schema validator of `toolexec/model`, the
 * default backend selector of `toolexec/discovery` (local > provider > mcp > first), input and
 * output validation on (output failures fatal).
 *
 * @throws `CONFIGURATION` for an option of the wrong type.
 * @internal
 */
export function resolveRunnerOptions(options: RunnerOptions = {}): ResolvedRunnerOptions {
  // A caller's object that throws (a getter, a revoked proxy) is a bad option, not a crash.
  return guardCall(errors, 'runner options', () => resolve(options), true);
}

function resolve(options: RunnerOptions): ResolvedRunnerOptions {
  if (options === null || typeof options !== 'object') {
    throw errors.configuration('runner options', 'must be an object');
  }
  const validateOutput = options.validateOutput ?? true;
  if (validateOutput !== true && validateOutput !== false && validateOutput !== 'warn') {
    throw errors.configuration('validateOutput', `must be true, false or 'warn', got ${String(validateOutput)}`);
  }
  checkFunction(options.toolResolver, 'toolResolver');
  checkFunction(options.backendsResolver, 'backendsResolver');
  checkFunction(options.backendSelector, 'backendSelector');
  checkFunction(options.onWarning, 'onWarning');
  checkFunction(options.onAttempt, 'onAttempt');
  const validateInput = options.validateInput ?? true;
  if (typeof validateInput !== 'boolean') {
    throw errors.configuration('validateInput', `must be true or false, got ${describeValue(validateInput)}`);
  }
  checkObject(options.index, 'index', 'a ToolIndex (with a getTool method)', ['getTool']);
  checkObject(options.mcp, 'mcp', 'an McpExecutor (with a callTool method)', ['callTool']);
  checkObject(options.provider, 'provider', 'a ProviderExecutor (with a callTool method)', ['callTool']);
  checkObject(options.validator, 'validator', 'a SchemaValidator (with validateInput and validateOutput methods)', [
    'validateInput',
    'validateOutput',
  ]);
  const local: unknown = options.local;
  if (local !== undefined && local !== null && typeof local !== 'object' && typeof local !== 'function') {
    throw errors.configuration('local', `must be a LocalRegistry or a record of handlers, got ${describeValue(local)}`);
  }
  const backends = options.backends ?? undefined;
  if (backends !== undefined && (backends === null || typeof (backends as { localRegistry?: unknown }).localRegistry !== 'function')) {
    throw errors.configuration('backends', 'must be a BackendRegistry');
  }
  return {
    index: options.index ?? undefined,
    toolResolver: options.toolResolver ?? undefined,
    backendsResolver: options.backendsResolver ?? undefined,
    backendSelector: options.backendSelector ?? defaultBackendSelector,
    validator: options.validator ?? createSchemaValidator(),
    validateInput,
    validateOutput: validateOutput === 'warn' ? 'warn' : validateOutput ? 'error' : 'off',
    onWarning: options.onWarning ?? undefined,
    local: localRegistryOf(options.local, backends),
    backends,
    mcp: options.mcp ?? undefined,
    provider: options.provider ?? undefined,
    telemetry: telemetryConfigOf(options),
    retry:
      options.retry === undefined ? DEFAULT_RESOLVED_RETRY : (readRetryPolicy(errors, options.retry, true) as ResolvedRetryPolicy | false),
    onAttempt: options.onAttempt ?? undefined,
  };
}

/** An injected part given as `name`: absent, or an object with every method of `methods`. */
function checkObject(value: unknown, name: string, what: string, methods: readonly string[]): void {
  if (value === undefined || value === null) return;
  const ok =
    (typeof value === 'object' || typeof value === 'function') &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
  if (!ok) throw errors.configuration(name, `must be ${what}, got ${describeValue(value)}`);
}

function checkFunction(value: unknown, name: string): void {
  if (value !== undefined && value !== null && typeof value !== 'function') {
    throw errors.configuration(name, 'must be a function');
  }
}
