/**
 * The steps of an injected-client run that wait on something outside: each gives up when the
 * run's signal aborts (a late result is discarded), and a kill is awaited only so long.
 */
import { ToolexecError, errorMessage } from '../../../model/index.js';
import { abortError, runtimeError } from '../../core/errors.js';
import type { ImageResolver } from './contract.js';

/** `fn` run at most once; later calls return the first call's settlement (never rejects). */
export function once(fn: () => void | Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= Promise.resolve()
      .then(fn)
      .catch(() => undefined);
    return done;
  };
}

/** Waits for `promise`, but at most `ms` milliseconds (never rejects). */
export function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs `step` under `signal`: rejects with the abort error as soon as the signal aborts, even if
 * the step ignores it (a late result is then passed to `discard`).
 */
export async function underSignal<T>(signal: AbortSignal, what: string, step: () => Promise<T>, discard?: (value: T) => void): Promise<T> {
  if (signal.aborted) throw abortError(signal, what);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(abortError(signal, what));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const work = step();
  try {
    return await Promise.race([work, aborted]);
  } catch (err) {
    if (signal.aborted) {
      if (discard !== undefined) work.then(discard, () => undefined);
      throw abortError(signal, what);
    }
    throw err;
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Runs an image resolver under the run's signal: its own ToolexecError passes through, any other
 * failure is `RUNTIME_UNAVAILABLE` naming the image.
 */
export async function resolveWith(resolver: ImageResolver | undefined, image: string, signal: AbortSignal): Promise<string> {
  if (resolver === undefined) return image;
  try {
    return await underSignal(signal, 'image resolution', () => resolver.resolve(image, { signal }));
  } catch (err) {
    if (signal.aborted) throw abortError(signal, 'image resolution');
    if (ToolexecError.isInstance(err)) throw err;
    throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: image resolution failed for "${image}": ${errorMessage(err)}`, {
      cause: err,
      details: { image, reason: 'image_resolution' },
    });
  }
}
