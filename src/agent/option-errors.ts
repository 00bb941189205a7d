/**
 * The errors of a bad option given when this layer makes something — an adapter (`agentTools`,
 * `aiSdkTools`), a tool (`codeTool`, `selectTools`), a server (`createMcpServer`), a code-mode API
 * (`codeModeApi`): `CONFIGURATION`, as docs/architecture.md's rule says (`errors.configuration`,
 * which names the option in `details.field`); here, the one for an options argument that is no object. A bad argument of a call made later (the model's arguments, a per-call option,
 * `toProviderTool`'s options) stays `INVALID_ARGUMENT` (`errors.invalidArgument`).
 */
import type { ToolexecError } from '../model/index.js';
import { layerErrors } from '../model/internal.js';

const errors = layerErrors('agent');

/** `CONFIGURATION` for an options argument that is no object: `agent: options <problem>`, `details.field`: `options`. */
export function optionsError(problem = 'must be an object'): ToolexecError {
  return errors('CONFIGURATION', `options ${problem}`, { details: { field: 'options' } });
}
