import { ToolexecError, errorMessage, type ErrorCode, type ToolBackend } from '../model/index.js';
import { abortOutcome, capText, describeValue, layerErrors, type Deadline } from '../model/internal.js';
import { ToolError, type ToolErrorInit, type ToolErrorOp } from './errors.js';
import { mcpResultTexts } from './normalize.js';
import type { CallToolResult } from './types.js';

/**
 * The run layer's failures, one function per kind: every error a call rejects with is made here,
 * as a {@link ToolError} naming the tool, the stage (`op`) and, once selected, the backend.
 *
 * @internal
 * @module
 */

const errors = layerErrors('run');

/** The code of a library error, or `fallback` for anything else. */
export function codeOf(err: unknown, fallback: ErrorCode): ErrorCode {
  return ToolexecError.isInstance(err) ? err.code : fallback;
}

/**
 * True for the index's "no such tool" answers, which let the resolvers try: a library error coded
 * `TOOL_NOT_FOUND` or `INVALID_TOOL_ID`. Anything else the index throws is a failed lookup
 * ({@link lookupFailure}).
 */
export function isNotFound(err: unknown): boolean {
  return ToolexecError.isInstance(err) && (err.code === 'TOOL_NOT_FOUND' || err.code === 'INVALID_TOOL_ID');
}

/** The ABORTED or TIMEOUT error of a stopped call; `cause` is the abort reason. */
export function abortToolError(toolId: string, op: ToolErrorOp, backend: ToolBackend | undefined, reason: unknown): ToolError {
  const outcome = abortOutcome(reason);
  const init: ToolErrorInit = { code: outcome.code, op, toolId, reason: outcome.text, cause: reason };
  if (backend !== undefined) init.backend = backend;
  return new ToolError(init);
}

/** INVALID_TOOL_ID: an empty ID, or one that is not a string. */
export function invalidToolId(toolId: unknown): ToolError {
  return new ToolError({
    code: 'INVALID_TOOL_ID',
    op: 'validate_tool_id',
    toolId: typeof toolId === 'string' ? toolId : describeValue(toolId),
    reason: typeof toolId === 'string' ? 'invalid tool id' : 'invalid tool id: the tool ID must be a string',
  });
}

/**
 * TOOL_NOT_FOUND, with the index's own miss as cause when there was one; `suggestions` (the closest
 * registered IDs, best first) go in the message (`did you mean 'fs:read_text_file'?`) and in
 * `details.suggestions`.
 */
export function toolNotFound(toolId: string, cause: unknown, suggestions: readonly string[] = []): ToolError {
  const hint = suggestions.length === 0 ? '' : `; did you mean ${suggestions.map((id) => `'${id}'`).join(' or ')}?`;
  const init: ToolErrorInit = { code: 'TOOL_NOT_FOUND', op: 'resolve', toolId, reason: `tool not found${hint}` };
  if (cause !== undefined) init.cause = cause;
  if (suggestions.length > 0) init.details = { suggestions: [...suggestions] };
  return new ToolError(init);
}

/** NO_BACKENDS at `op` (resolution, or a selector left with nothing to choose from). */
export function noBackends(toolId: string, op: 'resolve' | 'select_backend' = 'resolve', reason = 'no backends available'): ToolError {
  return new ToolError({ code: 'NO_BACKENDS', op, toolId, reason });
}

/**
 * A lookup (the index, a resolver, the selector) that threw or rejected: the thrown library error's
 * own code, else `EXECUTION` (the lookup failed: an outage, a bug), never `TOOL_NOT_FOUND` or
 * `NO_BACKENDS`, which only a real answer gives (the index's not-found, a resolver's `undefined`).
 * The error is the `cause`.
 */
export function lookupFailure(op: 'resolve' | 'select_backend', toolId: string, what: string, err: unknown): ToolError {
  const init: ToolErrorInit = { code: codeOf(err, 'EXECUTION'), op, toolId, reason: `${what}: ${errorMessage(err)}`, cause: err };
  // A library error's details (the server of a SERVER_UNAVAILABLE, ...) stay readable on the wrapper.
  if (ToolexecError.isInstance(err) && err.details !== undefined) init.details = err.details;
  return new ToolError(init);
}

/**
 * INVALID_TOOL: the `toolResolver` answered with a tool that breaks the model's rules
 * (`validateTool`: no name, no `inputSchema`, a field that cannot be read, ...); the model's error
 * is the `cause`.
 */
export function invalidResolvedTool(toolId: string, err: unknown): ToolError {
  return new ToolError({
    code: 'INVALID_TOOL',
    op: 'resolve',
    toolId,
    reason: `the tool resolver returned an invalid tool: ${errorMessage(err)}`,
    cause: err,
  });
}

/** A configuration problem found at dispatch (no executor, a backend without its target): EXECUTION, no cause. */
export function configError(op: ToolErrorOp, toolId: string, backend: ToolBackend, message: string, cause?: unknown): ToolError {
  const init: ToolErrorInit = { code: 'EXECUTION', op, toolId, backend, reason: `execution error: ${message}` };
  if (cause !== undefined) init.cause = cause;
  return new ToolError(init);
}

/** A local registry whose `get` threw. */
export function registryFailure(op: ToolErrorOp, toolId: string, backend: ToolBackend, name: string, err: unknown): ToolError {
  return configError(op, toolId, backend, `local registry lookup of "${name}" failed: ${errorMessage(err)}`, err);
}

/**
 * A failed dispatch: ABORTED/TIMEOUT when the call's deadline fired, else a ToolError with the
 * original error as cause and, as code, EXECUTION unless what ran the tool said more:
 *
 * - `TIMEOUT`: an executor's own (an MCP request that timed out, a server that stopped answering);
 * - `CONNECTION_CLOSED`, `PROTOCOL`: the MCP executor serving an `mcp` binding was closed during
 *   the call, or the server sent an invalid result (its `details.serverName` names the binding's
 *   server);
 * - `BACKEND_NOT_FOUND`, `BACKEND_DISABLED`, `TOOL_NOT_FOUND`: the backend layer's answer about the
 *   registry backend the call was dispatched to (`createRunner({ backends })`): it is not
 *   registered, it is disabled, it does not serve the tool. Recognised by its `details`, which
 *   name that backend (and, for TOOL_NOT_FOUND, that tool); the reason is its message and its
 *   `details` are kept.
 *
 * The same codes come from the runner's own local store (a `LocalBackend` given as `local`, the
 * facade's store) when its details name the binding's local name as `tool`: a disabled store
 * refuses so. Anything else is EXECUTION: a handler's own error, plain or a library error of
 * another code, and a backend-layer error about some other backend or tool (a handler's own
 * lookup that failed).
 */
export function executeFailure(toolId: string, backend: ToolBackend, err: unknown, deadline: Deadline | undefined): ToolError {
  if (deadline !== undefined && deadline.aborted) return abortToolError(toolId, 'execute', backend, deadline.reason);
  return dispatchFailure('execute', toolId, backend, err);
}

/**
 * What a backend's failure becomes at `op` (`execute`, or `stream` for a stream's source): the
 * codes of {@link executeFailure}, the original as `cause`.
 *
 * @internal
 */
export function dispatchFailure(op: 'execute' | 'stream', toolId: string, backend: ToolBackend, err: unknown): ToolError {
  const code = dispatchCode(err, backend);
  if (code === 'EXECUTION' || code === 'TIMEOUT') {
    return new ToolError({ code, op, toolId, backend, reason: `execution error: ${errorMessage(err)}`, cause: err });
  }
  const init: ToolErrorInit = { code, op, toolId, backend, reason: errorMessage(err), cause: err };
  const details = (err as ToolexecError).details;
  if (details !== undefined) init.details = { ...details };
  return new ToolError(init);
}

/** The code a failed dispatch keeps (see {@link executeFailure}). */
function dispatchCode(err: unknown, backend: ToolBackend): ErrorCode {
  if (!ToolexecError.isInstance(err)) return 'EXECUTION';
  switch (err.code) {
    case 'TIMEOUT':
      return 'TIMEOUT';
    case 'BACKEND_NOT_FOUND':
    case 'BACKEND_DISABLED':
      return isBackendAnswer(err, backend, false) ? err.code : 'EXECUTION';
    case 'TOOL_NOT_FOUND':
      return isBackendAnswer(err, backend, true) ? 'TOOL_NOT_FOUND' : 'EXECUTION';
    case 'CONNECTION_CLOSED':
    case 'PROTOCOL':
      // the MCP executor serving this call closed (`exec.close()`), or the server answered
      // something that is not a valid result: not the tool's own failure
      return backend.kind === 'mcp' && err.details?.serverName === backend.mcp?.serverName ? err.code : 'EXECUTION';
    default:
      return 'EXECUTION';
  }
}

/**
 * True when `err`'s details name the registry backend the call was dispatched to (with `aboutTool`,
 * and the tool too, where the binding names it): the backend `b` (tool `t`) of a local binding
 * named `b:t` (what `registerBackendTools` binds), the server of an `mcp` binding, the provider
 * (and tool) of a `provider` binding.
 */
function isBackendAnswer(err: ToolexecError, backend: ToolBackend, aboutTool: boolean): boolean {
  const details = err.details;
  if (details === undefined || typeof details.backend !== 'string') return false;
  // The runner's own local store refusing this very binding (a disabled `LocalBackend` given as `local`).
  if (backend.kind === 'local' && details.tool === backend.local?.name) return true;
  const target = dispatchTarget(backend);
  if (target === undefined || details.backend !== target.backend) return false;
  return !aboutTool || target.tool === undefined || details.tool === target.tool;
}

/** The registry backend (and tool) a binding dispatches to, when it names one. */
function dispatchTarget(backend: ToolBackend): { backend: string; tool: string | undefined } | undefined {
  const binding = backend as {
    kind?: unknown;
    local?: { name?: unknown };
    mcp?: { serverName?: unknown };
    provider?: { providerId?: unknown; toolId?: unknown };
  };
  switch (binding.kind) {
    case 'local': {
      const name = binding.local?.name;
      const colon = typeof name === 'string' ? name.indexOf(':') : -1;
      return colon > 0 ? { backend: (name as string).slice(0, colon), tool: (name as string).slice(colon + 1) } : undefined;
    }
    case 'mcp': {
      const server = binding.mcp?.serverName;
      return typeof server === 'string' ? { backend: server, tool: undefined } : undefined;
    }
    case 'provider': {
      const provider = binding.provider?.providerId;
      const tool = binding.provider?.toolId;
      return typeof provider === 'string' && typeof tool === 'string' ? { backend: provider, tool } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * VALIDATION / OUTPUT_VALIDATION from a schema check's error (its details copied); a schema that
 * cannot be compiled is the tool's fault, not the value's: its `INVALID_SCHEMA` stays.
 */
export function schemaToolError(code: 'VALIDATION' | 'OUTPUT_VALIDATION', toolId: string, backend: ToolBackend, err: unknown): ToolError {
  const op = code === 'VALIDATION' ? 'validate_input' : 'validate_output';
  const message = errorMessage(err);
  const prefix = code === 'VALIDATION' ? 'validation error' : 'output validation error';
  const brokenSchema = ToolexecError.isInstance(err) && err.code === 'INVALID_SCHEMA';
  const init: ToolErrorInit = {
    code: brokenSchema ? 'INVALID_SCHEMA' : code,
    op,
    toolId,
    backend,
    reason: brokenSchema || message.startsWith(prefix) ? message : `${prefix}: ${message}`,
    cause: err,
  };
  if (ToolexecError.isInstance(err) && err.details !== undefined) init.details = { ...err.details };
  return new ToolError(init);
}

/**
 * CONFIGURATION: the schema validator's `method` returned a promise (a `SchemaValidator` must be
 * synchronous), or its answer could not be read (`cause`).
 */
export function asyncValidatorError(
  method: 'validateInput' | 'validateOutput',
  toolId: string,
  backend: ToolBackend,
  cause: unknown,
): ToolError {
  const init: ToolErrorInit = {
    code: 'CONFIGURATION',
    op: method === 'validateInput' ? 'validate_input' : 'validate_output',
    toolId,
    backend,
    reason:
      cause === undefined
        ? `schema validator: ${method} returned a promise; a SchemaValidator must be synchronous`
        : `schema validator: ${method} returned an answer that could not be read: ${errorMessage(cause)}`,
    details: { validatorMethod: method },
  };
  if (cause !== undefined) init.cause = cause;
  return new ToolError(init);
}

/** EXECUTION for an MCP result with `isError: true`, quoting its texts (cut at 4 KiB; the whole result is `details.mcpResult`). */
export function mcpToolError(toolId: string, backend: ToolBackend, result: CallToolResult): ToolError {
  const texts = mcpResultTexts(result);
  const text = texts.length > 0 ? capText(texts.join('\n')) : 'the MCP tool reported an error without text';
  return new ToolError({
    code: 'EXECUTION',
    op: 'execute',
    toolId,
    backend,
    reason: `execution error: ${text}`,
    details: { isError: true, mcpResult: result },
  });
}

/**
 * Every rejection is a ToolexecError: the pipeline throws ToolErrors itself; anything else comes
 * from a misbehaving injected object (a throwing getter) and is reported as EXECUTION with it as cause.
 */
export function asRunFailure(err: unknown, toolId: unknown): ToolexecError {
  if (ToolexecError.isInstance(err)) return err;
  return new ToolError({
    code: 'EXECUTION',
    op: 'resolve',
    toolId: typeof toolId === 'string' ? toolId : describeValue(toolId),
    reason: `unexpected failure: ${errorMessage(err)}`,
    cause: err,
  });
}

/**
 * A runner method (`runChain`) that failed with something other than a library error, outside
 * anything the caller handed over (a bug): `EXECUTION` (502), `run: <method> failed: unexpected
 * failure: <message>`, with it as `cause` — the facade's wording for the same failure, and the code
 * `run` gives a non-library throw ({@link asRunFailure}). A library error is returned as it is.
 * `layer`: the error factory of the layer whose method failed (the facade's for `exec.runTool`).
 */
export function unexpectedFailure(method: string, err: unknown, layer: ReturnType<typeof layerErrors> = errors): ToolexecError {
  let known = false;
  try {
    known = ToolexecError.isInstance(err);
  } catch {
    // a thrown revoked proxy: not ours
  }
  if (known) return err as ToolexecError;
  return layer('EXECUTION', `${method} failed: unexpected failure: ${errorMessage(err)}`, { cause: err });
}

/** A chain step's failure as a ToolError (a library error that is not one is wrapped, op `execute`). */
export function asStepFailure(err: unknown, toolId: string): ToolError {
  if (ToolError.isToolError(err)) return err;
  const failure = asRunFailure(err, toolId);
  if (ToolError.isToolError(failure)) return failure;
  return new ToolError({ code: failure.code, op: 'execute', toolId, reason: errorMessage(failure), cause: failure });
}
