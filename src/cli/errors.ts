/**
 * The command's own errors (`cli: ...`), made by the one error factory every layer uses.
 */
import { layerErrors } from '../model/internal.js';

/** The cli layer's error factory: `INVALID_ARGUMENT` for bad input, `CONFIGURATION` for a bad config or tool module. */
export const cliErrors = layerErrors('cli');

/** `ABORTED`: the command was stopped by a signal (SIGINT, SIGTERM); exit code 130. */
export function interrupted(signal: string): Error {
  return cliErrors('ABORTED', `interrupted (${signal})`, { details: { signal } });
}
