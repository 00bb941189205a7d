import { errorMessage, type ContractViolation } from '../model/index.js';
import { describeValue } from '../model/internal.js';
import { ToolError, type ToolErrorInit } from './errors.js';
import type { ChainStep } from './types.js';

/**
 * A chain step's arguments: a shallow copy of `args`, then (with `argsFrom`) the arguments built
 * from the previous step's `structured` result merged over them, then (with `usePrevious`)
 * `args.previous`. A failure here fails the step like a failed call: `args` that cannot be read
 * (a throwing getter, a revoked proxy) as `run` fails them, `VALIDATION`; a step field, an
 * `argsFrom` or what an `argsFrom` function returns that cannot be read, `INVALID_ARGUMENT`.
 *
 * @internal
 * @module
 */

/** A step's arguments and the names of those that came from the previous step's result. */
export interface StepArgs {
  args: Record<string, unknown>;
  /** The argument names set from the previous result (`previous` for `usePrevious`); `[]` when none. */
  fromPrevious: string[];
}

/** Builds the arguments of `step` given the last successful step's `structured` value. @throws ToolError */
export function stepArgs(step: ChainStep | undefined, toolId: string, previous: unknown): StepArgs {
  const args = copyArgs(stepField(step, 'args', toolId), toolId);
  const fromPrevious: string[] = [];
  const argsFrom = stepField(step, 'argsFrom', toolId);
  if (argsFrom !== undefined && argsFrom !== null) {
    const built = typeof argsFrom === 'function' ? fromFunction(argsFrom, toolId, previous) : fromPointers(argsFrom, toolId, previous);
    for (const name of Object.keys(built)) {
      args[name] = built[name];
      fromPrevious.push(name);
    }
  }
  if (stepField(step, 'usePrevious', toolId) === true) {
    args.previous = previous;
    if (!fromPrevious.includes('previous')) fromPrevious.push('previous');
  }
  return { args, fromPrevious };
}

/** A field of the caller's step; INVALID_ARGUMENT naming it when it cannot be read (a throwing getter). */
function stepField<K extends 'args' | 'argsFrom' | 'usePrevious'>(step: ChainStep | undefined, field: K, toolId: string): ChainStep[K] {
  try {
    return step?.[field];
  } catch (err) {
    throw argumentError(toolId, `step ${field} could not be read: ${errorMessage(err)}`, { field }, err);
  }
}

/**
 * A fresh shallow copy of a step's `args` (`{}` when absent). Only an object is spread (a 5 MB
 * string would become 5 million arguments); one that cannot be read fails the step as `run` fails
 * such arguments ({@link unreadableArgs}).
 */
function copyArgs(given: unknown, toolId: string): Record<string, unknown> {
  if (given === undefined || given === null) return {};
  if (typeof given === 'object') {
    try {
      if (!Array.isArray(given)) return { ...(given as Record<string, unknown>) };
    } catch (err) {
      throw unreadableArgs(toolId, err);
    }
  }
  throw argumentError(toolId, `step args must be an object, got ${describeValue(given)}`, {});
}

/**
 * VALIDATION (op `validate_input`, one root violation, what was thrown as `cause`): a step's `args`
 * that cannot be read, as `run` fails arguments its input validation cannot read.
 */
function unreadableArgs(toolId: string, cause: unknown): ToolError {
  const message = errorMessage(cause);
  const violation: ContractViolation = {
    code: 'ConstraintViolation',
    field: '',
    message: `Field '(root)' could not be read: ${message}.`,
  };
  return new ToolError({
    code: 'VALIDATION',
    op: 'validate_input',
    toolId,
    reason: `validation error: step args could not be read: ${message}`,
    details: { violations: [violation] },
    cause,
  });
}

/**
 * The step failure with the arguments that came from the previous step named in its message
 * (`(arguments from the previous step: path, text)`) and in `details.fromPrevious`; the same
 * code, stage, backend and cause.
 */
export function withPreviousArgs(error: ToolError, fromPrevious: readonly string[]): ToolError {
  if (fromPrevious.length === 0) return error;
  const init: ToolErrorInit = {
    code: error.code,
    op: error.op,
    toolId: error.toolId,
    reason: `${error.reason} (arguments from the previous step: ${fromPrevious.join(', ')})`,
    details: { ...error.details, fromPrevious: [...fromPrevious] },
  };
  if (error.backend !== undefined) init.backend = error.backend;
  if (error.cause !== undefined) init.cause = error.cause;
  return new ToolError(init);
}

function argumentError(toolId: string, reason: string, details: Record<string, unknown>, cause?: unknown): ToolError {
  const init: ToolErrorInit = { code: 'INVALID_ARGUMENT', op: 'validate_input', toolId, reason: `invalid argument: ${reason}`, details };
  if (cause !== undefined) init.cause = cause;
  return new ToolError(init);
}

function fromFunction(build: (previous: unknown) => Record<string, unknown>, toolId: string, previous: unknown): Record<string, unknown> {
  let built: unknown;
  try {
    built = build(previous);
  } catch (err) {
    throw argumentError(toolId, `argsFrom threw: ${errorMessage(err)}`, {}, err);
  }
  if (built === null || typeof built !== 'object') throw argumentError(toolId, 'argsFrom must return an object of arguments', {});
  let copy: Record<string, unknown> | undefined;
  try {
    if (!Array.isArray(built)) copy = { ...(built as Record<string, unknown>) };
  } catch (err) {
    throw argumentError(toolId, `argsFrom's result could not be read: ${errorMessage(err)}`, {}, err);
  }
  if (copy === undefined) throw argumentError(toolId, 'argsFrom must return an object of arguments', {});
  return copy;
}

function fromPointers(mapping: unknown, toolId: string, previous: unknown): Record<string, unknown> {
  let entries: [string, unknown][] | undefined;
  try {
    if (typeof mapping === 'object' && !Array.isArray(mapping)) entries = Object.entries(mapping as Record<string, unknown>);
  } catch (err) {
    throw argumentError(toolId, `argsFrom could not be read: ${errorMessage(err)}`, {}, err);
  }
  if (entries === undefined) throw argumentError(toolId, 'argsFrom must map argument names to JSON pointers', {});
  const out: Record<string, unknown> = {};
  for (const [name, pointer] of entries) {
    if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) {
      throw argumentError(toolId, `argsFrom.${name} must be a JSON pointer ('' or starting with '/')`, { argument: name, pointer });
    }
    const found = resolvePointer(previous, pointer);
    if (!found.ok) {
      throw argumentError(
        toolId,
        `argsFrom.${name}: JSON pointer '${pointer}' does not resolve in the previous step's result (no '${found.missing}')`,
        { argument: name, pointer, missing: found.missing },
      );
    }
    out[name] = found.value;
  }
  return out;
}

/** The value at RFC 6901 `pointer` in `root` (own properties and array indexes only). */
function resolvePointer(root: unknown, pointer: string): { ok: true; value: unknown } | { ok: false; missing: string } {
  if (pointer === '') return root === undefined ? { ok: false, missing: '' } : { ok: true, value: root };
  let current = root;
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += `/${raw}`;
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= current.length) return { ok: false, missing: path };
      current = current[Number(key)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else {
      return { ok: false, missing: path };
    }
  }
  return { ok: true, value: current };
}
