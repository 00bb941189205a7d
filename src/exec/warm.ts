/**
 * `connect()`'s warm-up of sandboxes: the languages of `warmLanguages` started ahead of the first
 * snippet through the runtime's optional `warm`, waited for within `connect()`'s bounds.
 */
import { ABORTED, Deadline, abortError, asLibraryError, layerErrors } from '../model/internal.js';
import type { Runtime } from '../runtime/index.js';

const errors = layerErrors('exec');

/**
 * Starts the sandboxes of `languages` on `runtime` and waits for them: `bounds.timeoutMs` ends the
 * wait (the warm-up goes on in the background), `bounds.signal` rejects (`ABORTED`), and a sandbox
 * that cannot start rejects with the runtime's error. `undefined` when there is nothing to warm or
 * the runtime has no `warm`.
 */
export function warmSandboxes(
  runtime: Runtime,
  languages: readonly string[],
  bounds: { signal?: AbortSignal; timeoutMs?: number },
): Promise<void> | undefined {
  if (languages.length === 0 || typeof runtime.warm !== 'function') return undefined;
  let warming: Promise<void>;
  try {
    warming = Promise.resolve(runtime.warm({ languages }));
  } catch (err) {
    return Promise.reject(asLibraryError(errors, 'runtime.warm', err));
  }
  if (bounds.signal === undefined && bounds.timeoutMs === undefined) return warming;
  const deadline = new Deadline(bounds.signal, bounds.timeoutMs);
  return deadline.race(warming).then(
    (outcome) => {
      deadline.dispose();
      if (outcome === ABORTED && !deadline.timedOut) throw abortError(errors, deadline.reason, 'connect() waiting for the sandboxes was');
    },
    (err: unknown) => {
      deadline.dispose();
      throw err;
    },
  );
}
