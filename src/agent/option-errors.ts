/**
 * The errors of a bad option given when this layer makes something — an adapter (`agentTools`,
 * `aiSdkTools`), a tool (`codeTool`, `selectTools`), a server (`createMcpServer`), a code-mode API
 * (`codeModeApi`): `CONFIGURATION`, as docs/architecture.md's rule says, with `details.field` naming
 * the option. A bad argument of a call made later (the model's arguments, a per-call option,
 * `toProviderTool`'s options) stays `INVALID_ARGUMENT` (`errors.invalidArgument`).
 */
import type { ToolexecError, ToolexecErrorOptions } from '../model/index.js';
import { layerErrors } from '../model/internal.js';

const errors = layerErrors('agent');

/** `CONFIGURATION`: `agent: option <name> <problem>`, `details.field`: `name`. */
export function optionError(name: string, problem: string, options?: ToolexecErrorOptions): ToolexecError {
  return errors.configuration(name, problem, { ...options, details: { field: name, ...options?.details } });
}

/** `CONFIGURATION` for an options argument that is no object: `agent: options <problem>`, `details.field`: `options`. */
export function optionsError(problem = 'must be an object'): ToolexecError {
  return errors('CONFIGURATION', `options ${problem}`, { details: { field: 'options' } });
}
