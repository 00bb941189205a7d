/**
 * The facade's share of a snippet call: the caller's params read once — a plain copy, as
 * `readExecCall` copies a call's options — from which the facade takes the bounds of its wait for
 * the MCP servers' first imports and adds the host backend's opt-in, and which it hands to the code
 * executor: both see the same values, whatever the caller's object does.
 *
 * @internal
 * @module
 */
import { ToolexecError } from '../model/index.js';
import { asLibraryError, budgetMs, layerErrors, readField } from '../model/internal.js';
import type { CodeParams } from '../code/index.js';
import { readCodeParams, readSnippetBounds, snippetAbortError, withCodeResult } from '../code/internal.js';
import type { SecurityProfile } from '../runtime/index.js';
import type { WaitBounds } from './servers.js';

const errors = layerErrors('exec');

/** One snippet call, read. */
export interface SnippetCall {
  /** What the code executor is given: the caller's fields, read once (with the host opt-in for `dev`). */
  readonly params: CodeParams;
  /**
   * What bounds the wait for the servers' first imports: the snippet's `signal`, and its `timeoutMs`
   * or `deadline` (the earlier). `undefined` when those are invalid: the executor refuses them at
   * once, so there is nothing to wait for.
   */
  readonly wait: WaitBounds | undefined;
}

/**
 * Reads a snippet call's params once.
 *
 * @throws `INVALID_ARGUMENT` for params that are not an object or a field that cannot be read (the
 * code executor's own words: `executeCode: option timeoutMs could not be read`), or a `metadata`
 * that cannot be read when the host opt-in is added.
 */
export function readSnippetCall(params: unknown, defaultProfile: SecurityProfile): SnippetCall {
  let given = readCodeParams(params);
  let wait: WaitBounds | undefined;
  try {
    const bounds = readSnippetBounds(given);
    wait = { signal: bounds.signal, timeoutMs: budgetMs(bounds.timeoutMs, bounds.deadlineMs) };
  } catch {
    wait = undefined;
  }
  // The host backend runs snippets only with this opt-in; `dev` was named by the caller (or the facade's own profile).
  const profile = given.profile ?? defaultProfile;
  const metadata: unknown = given.metadata;
  if (profile === 'dev' && (metadata === undefined || (metadata !== null && typeof metadata === 'object'))) {
    try {
      if (readField(errors, metadata ?? {}, 'unsafeOptIn') === undefined) {
        given = { ...given, metadata: { ...(metadata as Record<string, unknown> | undefined), unsafeOptIn: true } };
      }
    } catch (err) {
      throw asLibraryError(errors, 'option metadata', err);
    }
  }
  return { params: given, wait };
}

/**
 * The failure of the wait for the servers before a snippet: when the snippet's own `signal` ended
 * it (a required server still connecting), the snippet's abort error — the code executor's words
 * for that cause at any other moment (`code execution aborted: <reason>`, `cause` the reason), with
 * its empty partial result; anything else as it is.
 */
export function snippetWaitFailure(err: unknown, signal: AbortSignal | undefined, durationMs: number): unknown {
  try {
    if (signal?.aborted !== true || !ToolexecError.isInstance(err) || (err.code !== 'ABORTED' && err.code !== 'TIMEOUT')) return err;
    const reason: unknown = signal.reason;
    if (err.cause !== reason) return err;
    return withCodeResult(snippetAbortError(reason), { stdout: '', stderr: '', toolCalls: [], durationMs });
  } catch {
    return err;
  }
}
