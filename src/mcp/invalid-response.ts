/**
 * Responses a server sends malformed (`"result": null`, an `error` without a numeric `code`): the
 * SDK drops a message it cannot classify (reporting it to `onerror`), so the request it answers
 * would wait for its timeout. Such a response is handed on instead as a JSON-RPC error response
 * for the same ID whose `data` is an {@link InvalidServerResponse}, which the executor reports as
 * `PROTOCOL` at once.
 *
 * @internal
 * @module
 */
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describeValue } from '../model/internal.js';

/** The `data` of the error response that stands in for a malformed one: what was wrong with it. */
export class InvalidServerResponse {
  /** What was wrong (`its result is null, not an object`). */
  readonly problem: string;

  constructor(problem: string) {
    this.problem = problem;
  }
}

/** Longest quote of a schema's complaint. */
const MAX_PROBLEM_CHARS = 300;

/**
 * The error response standing in for `value` when it is meant as a response (an `id` the client
 * could have sent, no `method`) but is not a valid one; `undefined` for anything else (a valid
 * response, a request, a notification, a line that is no message at all). `schemaError`: the
 * schema's complaint, quoted when the quick checks find nothing more precise.
 */
export function standInResponse(value: unknown, schemaError?: unknown): JSONRPCMessage | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const message = value as Record<string, unknown>;
  const id = message.id;
  if ('method' in message || (typeof id !== 'string' && !Number.isSafeInteger(id))) return undefined;
  let problem = responseProblem(message);
  if (problem === undefined && schemaError !== undefined) {
    const text = (schemaError instanceof Error ? schemaError.message : describeValue(schemaError)).replace(/\s+/g, ' ');
    problem = `it does not match the JSON-RPC schema: ${text.length > MAX_PROBLEM_CHARS ? `${text.slice(0, MAX_PROBLEM_CHARS)}…` : text}`;
  }
  if (problem === undefined) return undefined;
  return {
    jsonrpc: '2.0',
    id: id as string | number,
    error: { code: ErrorCode.InternalError, message: `invalid response: ${problem}`, data: new InvalidServerResponse(problem) },
  };
}

/** What is wrong with a response's shape, or `undefined` when it has that of a result or an error response. */
function responseProblem(message: Record<string, unknown>): string | undefined {
  const hasResult = 'result' in message;
  if (hasResult === 'error' in message) return hasResult ? 'it has both a result and an error' : 'it has neither a result nor an error';
  if (message.jsonrpc !== '2.0') return `its jsonrpc is ${describeValue(message.jsonrpc)}, not "2.0"`;
  if (hasResult) {
    const result = message.result;
    return typeof result === 'object' && result !== null && !Array.isArray(result)
      ? undefined
      : `its result is ${describeValue(result)}, not an object`;
  }
  const error = message.error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return `its error is ${describeValue(error)}, not an object`;
  const { code, message: text } = error as Record<string, unknown>;
  if (!Number.isSafeInteger(code)) return `its error code is ${describeValue(code)}, not an integer`;
  if (typeof text !== 'string') return `its error message is ${describeValue(text)}, not a string`;
  return undefined;
}
