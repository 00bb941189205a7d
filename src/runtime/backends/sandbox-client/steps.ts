/**
 * The steps of an injected-client run that wait on something outside: each gives up when the
 * run's signal aborts (`underSignal` of `core/stopping.ts`: a late result is discarded).
 */
import { ToolexecError, errorMessage } from '../../../model/index.js';
import { runtimeError } from '../../core/errors.js';
import { abortError, underSignal } from '../../core/stopping.js';
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
