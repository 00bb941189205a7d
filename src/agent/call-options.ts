/**
 * The options of one `AgentTools.call`, read before the call runs. They are the app's, not the
 * model's: a bad one (`timeoutMs: -1`, a `signal` that is no `AbortSignal`, a `callId` that is no
 * string) rejects the call with `INVALID_ARGUMENT` naming the option (option-errors.ts), instead of
 * becoming a tool result that asks the model to fix what only the app controls.
 */
import { describeValue, layerErrors, readField, readOptionsObject } from '../model/internal.js';
import type { RunOptions } from '../run/index.js';
import { readRunOptions } from '../run/internal.js';

const errors = layerErrors('agent');

/** One call's options, read. */
export interface AgentCallRead {
  /** The model's tool-call ID to write into the result; undefined when none was given. */
  callId: string | undefined;
  /** What the tool runs with (the call's options without `callId`); undefined when none were given. */
  runOptions: RunOptions | undefined;
}

/**
 * Reads `call`'s options: `callId` must be a string, the run options are checked by the runner's
 * own reader (`readRunOptions`: `signal`, `timeoutMs`, `deadline`, `onProgress`, `idempotencyKey`,
 * `retry`), so they are refused here with the words every `run` uses.
 *
 * @throws `INVALID_ARGUMENT` (`details.field` the option) for options that are not an object, a
 * field that cannot be read, a `callId` that is not a string, a bad run option.
 */
export function readAgentCallOptions(options: unknown): AgentCallRead {
  const given = readOptionsObject(errors, 'options', options);
  if (given === undefined) return { callId: undefined, runOptions: undefined };
  const callId = readField(errors, given, 'callId');
  if (callId !== undefined && typeof callId !== 'string') {
    throw errors.invalidArgument('option callId', `must be a string (the ID of the model's tool call), got ${describeValue(callId)}`);
  }
  readRunOptions(given);
  let runOptions: RunOptions;
  try {
    const { callId: _callId, ...rest } = given as RunOptions & { callId?: unknown };
    runOptions = rest;
  } catch (err) {
    throw errors.invalidArgument('options', 'could not be read', { cause: err });
  }
  return { callId, runOptions };
}
