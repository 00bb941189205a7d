/**
 * Calling the listeners callers hand in (events, progress, warnings, retries, index changes).
 *
 * @internal
 * @module
 */
import { errorMessage } from './errors.js';

/**
 * Calls `listener` with `value`; what the listener does is its own business. A throw, or the
 * rejection of a promise it returns (an `async` listener), goes to `onError` (nowhere by default):
 * never to the work the listener is told about, and never as an unhandled rejection that would
 * end the process.
 */
export function callListener<T>(listener: (value: T) => unknown, value: T, onError?: (error: unknown) => void): void {
  let out: unknown;
  try {
    out = listener(value);
    if (out === null || (typeof out !== 'object' && typeof out !== 'function')) return;
    const then = (out as { then?: unknown }).then;
    if (typeof then !== 'function') return;
    (then as PromiseLike<unknown>['then']).call(out, undefined, (error: unknown) => report(onError, error));
  } catch (error) {
    report(onError, error);
  }
}

function report(onError: ((error: unknown) => void) | undefined, error: unknown): void {
  if (onError === undefined) return;
  try {
    onError(error);
  } catch {
    // the reporter's own failure has nowhere left to go
  }
}

/**
 * Reports a listener's failure as a process warning named `ToolexecListenerWarning` (its `cause`
 * the listener's error): visible, and never the end of the process. `what` says which listener
 * threw on what ("a ToolIndex change listener threw on \"registered\"").
 */
export function warnListenerFailure(what: string, error: unknown): void {
  const warning = new Error(`${what}: ${errorMessage(error)}`, { cause: error });
  warning.name = 'ToolexecListenerWarning';
  const host = (globalThis as { process?: { emitWarning?: (warning: Error) => void } }).process;
  if (typeof host?.emitWarning === 'function') host.emitWarning(warning);
  else console.error(warning);
}
