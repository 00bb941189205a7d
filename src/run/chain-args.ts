import { errorMessage } from '../model/index.js';
import { describeValue } from '../model/internal.js';
import { ToolError, type ToolErrorInit } from './errors.js';
import type { ChainStep } from './types.js';

/**
 * A chain step's arguments: a shallow copy of `args`, then (with `argsFrom`) the arguments built
 * from the previous step's `structured` result merged over them, then (with `usePrevious`)
 * `args.previous`. A failure here fails the step like a failed call.
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
  const given = step?.args;
  // Only an object is spread (a 5 MB string would become 5 million arguments).
  if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given))) {
    throw argumentError(toolId, `step args must be an object, got ${describeValue(given)}`, {});
  }
  const args: Record<string, unknown> = given === undefined || given === null ? {} : { ...given };
  const fromPrevious: string[] = [];
  const argsFrom = step?.argsFrom;
  if (argsFrom !== undefined && argsFrom !== null) {
    const built = typeof argsFrom === 'function' ? fromFunction(argsFrom, toolId, previous) : fromPointers(argsFrom, toolId, previous);
    for (const name of Object.keys(built)) {
      args[name] = built[name];
      fromPrevious.push(name);
    }
  }
  if (step?.usePrevious === true) {
    args.previous = previous;
    if (!fromPrevious.includes('previous')) fromPrevious.push('previous');
  }
  return { args, fromPrevious };
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
  if (built === null || typeof built !== 'object' || Array.isArray(built)) {
    throw argumentError(toolId, 'argsFrom must return an object of arguments', {});
  }
  return built as Record<string, unknown>;
}

function fromPointers(mapping: unknown, toolId: string, previous: unknown): Record<string, unknown> {
  if (typeof mapping !== 'object' || Array.isArray(mapping)) {
    throw argumentError(toolId, 'argsFrom must map argument names to JSON pointers', {});
  }
  const out: Record<string, unknown> = {};
  for (const [name, pointer] of Object.entries(mapping as Record<string, unknown>)) {
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
