/**
 * The errors the test doubles raise about their own use (an unknown server or tool, a spec they
 * cannot run): `testing: <message>`. Errors a double *simulates* (a tool failing, a call timing
 * out) keep the shape of the real component's errors.
 */
import { layerErrors } from '../model/internal.js';

/** The testing layer's error factory. */
export const testingErrors = layerErrors('testing');
