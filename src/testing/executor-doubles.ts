/**
 * Test doubles for the executors a user injects into the runner (`mcp`, `provider`): in-memory,
 * scripted by plain functions, recording every call, and honest about cancellation — an aborted
 * signal rejects with ABORTED, and `timeoutMs` or `deadline` passing with TIMEOUT, exactly as the
 * real executors do.
 */
import { ToolexecError, errorMessage } from '../model/index.js';
import { ABORTED, Deadline, abortError, linkedSignal } from '../model/internal.js';
import { readCallParams } from '../mcp/internal.js';
import { callDeadline, readRunOptions } from '../run/internal.js';
import { testingErrors } from './errors.js';
import type { CallToolResult, McpExecutor, ProgressEvent, ProviderExecutor, RunOptions, StreamEvent } from '../run/index.js';

/** What a scripted tool receives besides its arguments. */
export interface FakeToolContext {
  /** Aborted when the caller aborts or times out. */
  signal: AbortSignal;
  /** Reports progress to the caller (`onProgress` / stream `progress` events). */
  progress(event: ProgressEvent): void;
}

/** One recorded executor call. */
export interface RecordedCall {
  /** The MCP server name or the provider ID. */
  target: string;
  /** The MCP tool name or the provider's tool ID. */
  tool: string;
  /** The arguments as received (not copied); `undefined` when the call sent none. */
  args: Record<string, unknown> | undefined;
  /** How the call ended; `pending` while it runs. */
  outcome: 'pending' | 'ok' | 'error' | 'aborted';
  /**
   * What went wrong, when the call ended in `error` or `aborted`: the error's message (for an MCP
   * server or a provider tool the double does not have, the message of the CONFIGURATION error it
   * rejected with), or for a tool the MCP server does not have, the text of the `isError` result it
   * answered (`unknown tool: <name>`). Absent otherwise.
   */
  error?: string;
}

/**
 * A scripted MCP tool: returns a full `CallToolResult`, or any other JSON value, which becomes
 * `{ content: [{ type: 'text', text: JSON }], structuredContent }` (objects) or a text result
 * (`undefined`: no content). A value that is not JSON (a function, a bigint, a cycle) fails the
 * call with CONFIGURATION, recorded as an `error`.
 */
export type FakeMcpTool = (args: Record<string, unknown>, ctx: FakeToolContext) => unknown;

/** A scripted provider tool: its return value is the structured result. */
export type FakeProviderTool = (args: Record<string, unknown>, ctx: FakeToolContext) => unknown;

/** An {@link McpExecutor} double with its call log. */
export interface FakeMcpExecutor extends Required<McpExecutor> {
  /**
   * Every call, in order: to a scripted tool, to a tool the server does not have, or to a server
   * the double does not have (both recorded as an `error`, with the answer or the rejection's
   * message as `error`), so a test can assert that the model tried a tool that does not exist.
   */
  readonly calls: RecordedCall[];
}

/** A {@link ProviderExecutor} double with its call log. */
export interface FakeProviderExecutor extends Required<ProviderExecutor> {
  /**
   * Every call, in order: to a scripted tool, or to a provider or tool the double does not have
   * (recorded as an `error`, with the rejection's message as `error`).
   */
  readonly calls: RecordedCall[];
}

/**
 * An MCP executor double over scripted tools, by server then tool name.
 *
 * @remarks Unknown servers reject with CONFIGURATION (as the real executor does); unknown tools
 * resolve with an `isError` result (what a real server answers); both are recorded in `calls` with
 * outcome `error`. A thrown error rejects the call with EXECUTION.
 *
 * @example
 * ```ts
 * const mcp = createFakeMcpExecutor({ files: { read: ({ path }) => ({ text: `contents of ${path}` }) } });
 * const runner = createRunner({ index, mcp });
 * ```
 */
export function createFakeMcpExecutor(servers: Record<string, Record<string, FakeMcpTool>>): FakeMcpExecutor {
  const calls: RecordedCall[] = [];
  const invoke = async (
    serverName: string,
    name: string,
    args: Record<string, unknown> | undefined,
    options?: RunOptions,
  ): Promise<CallToolResult> => {
    const tools = Object.hasOwn(servers, serverName) ? servers[serverName] : undefined;
    if (tools === undefined) {
      // recorded too: the model (or a misconfigured binding) asked for a server that is not there;
      // the message is the real executor's (after the layer's prefix)
      const known = Object.keys(servers);
      const configured = known.length === 0 ? '(none)' : known.map((n) => `"${n}"`).join(', ');
      throw refused(calls, serverName, name, args, `Unknown MCP server "${serverName}"; configured: ${configured}`);
    }
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (tool === undefined) {
      // recorded like any call, so a test sees the model tried a tool that does not exist
      const text = `unknown tool: ${name}`;
      calls.push({ target: serverName, tool: name, args, outcome: 'error', error: text });
      return { content: [{ type: 'text', text }], isError: true };
    }
    return runScripted(calls, serverName, name, args, options, tool, (value) => toCallToolResult(`${serverName}/${name}`, value));
  };
  /** A call with its params read as the real executor reads them: INVALID_ARGUMENT (a rejection) for bad ones. */
  const invokeWith = async (serverName: string, params: unknown, options?: RunOptions): Promise<CallToolResult> => {
    const read = readCallParams(params);
    return invoke(serverName, read.name, read.arguments, options);
  };
  return {
    calls,
    callTool(serverName, params, options) {
      return invokeWith(serverName, params, options);
    },
    callToolStream(serverName, params, options) {
      return streamOf(
        options,
        (streamOptions) => invokeWith(serverName, params, streamOptions),
        (result) => {
          if (result.isError === true) {
            const text = result.content.map((item) => ('text' in item && typeof item.text === 'string' ? item.text : '')).join('\n');
            return { kind: 'error', error: new ToolexecError('EXECUTION', `execution error: ${text}`, { details: { mcpResult: result } }) };
          }
          return { kind: 'done', data: result.structuredContent ?? result };
        },
      );
    },
  };
}

/**
 * A provider executor double over scripted tools, by provider ID then tool ID.
 *
 * @remarks Unknown providers or tools reject with CONFIGURATION, recorded in `calls` with outcome
 * `error`; a thrown error rejects with EXECUTION. A runner turns any rejection of a provider
 * executor into EXECUTION (the rejection as `cause`), these included.
 *
 * @example
 * ```ts
 * const provider = createFakeProviderExecutor({ weather: { 'forecast.v1': ({ city }) => ({ city, tempC: 21 }) } });
 * const runner = createRunner({ index, provider });
 * ```
 */
export function createFakeProviderExecutor(providers: Record<string, Record<string, FakeProviderTool>>): FakeProviderExecutor {
  const calls: RecordedCall[] = [];
  const invoke = (providerId: string, toolId: string, args: Record<string, unknown>, options?: RunOptions): Promise<unknown> => {
    const tools = Object.hasOwn(providers, providerId) ? providers[providerId] : undefined;
    if (tools === undefined) {
      const known = Object.keys(providers).join(', ') || 'none';
      return Promise.reject(refused(calls, providerId, toolId, args, `no provider named "${providerId}" (known: ${known})`));
    }
    const tool = Object.hasOwn(tools, toolId) ? tools[toolId] : undefined;
    if (tool === undefined) {
      const known = Object.keys(tools).join(', ') || 'none';
      return Promise.reject(refused(calls, providerId, toolId, args, `provider "${providerId}" has no tool "${toolId}" (known: ${known})`));
    }
    return runScripted(calls, providerId, toolId, args, options, tool);
  };
  return {
    calls,
    callTool: invoke,
    callToolStream(providerId, toolId, args, options) {
      return streamOf(
        options,
        (streamOptions) => invoke(providerId, toolId, args, streamOptions),
        (value) => ({ kind: 'done', data: value }),
      );
    },
  };
}

async function runScripted<T = unknown>(
  calls: RecordedCall[],
  target: string,
  tool: string,
  args: Record<string, unknown> | undefined,
  options: RunOptions | undefined,
  script: (args: Record<string, unknown>, ctx: FakeToolContext) => unknown,
  convert: (value: unknown) => T = (value) => value as T,
): Promise<T> {
  const record: RecordedCall = { target, tool, args, outcome: 'pending' };
  calls.push(record);
  // the options read as the runner reads them: the caller's signal, the earlier of timeoutMs and deadline
  let deadline: Deadline;
  try {
    deadline = callDeadline(readRunOptions(options)) ?? new Deadline(undefined, undefined);
  } catch (err) {
    throw ended(record, 'error', err as ToolexecError);
  }
  if (deadline.aborted) {
    deadline.dispose();
    throw ended(record, 'aborted', abortedError(deadline));
  }
  const onProgress = options?.onProgress;
  const signal = deadline.signal;
  const ctx: FakeToolContext = {
    signal,
    progress: (event) => {
      if (!signal.aborted) onProgress?.(event);
    },
  };
  try {
    const value = await deadline.race(Promise.resolve().then(() => script(args ?? {}, ctx)));
    if (value === ABORTED) throw abortedError(deadline);
    const converted = convert(value);
    record.outcome = 'ok';
    return converted;
  } catch (err) {
    if (deadline.aborted) throw ended(record, 'aborted', abortedError(deadline));
    throw ended(record, 'error', ToolexecError.isInstance(err) ? err : new ToolexecError('EXECUTION', errorMessage(err), { cause: err }));
  } finally {
    deadline.dispose();
  }
}

/** Records a call the double cannot serve (an unknown server, provider or tool); returns the CONFIGURATION error to throw. */
function refused(
  calls: RecordedCall[],
  target: string,
  tool: string,
  args: Record<string, unknown> | undefined,
  message: string,
): ToolexecError {
  const error = testingErrors('CONFIGURATION', message);
  calls.push({ target, tool, args, outcome: 'error', error: error.message });
  return error;
}

/** Records how `record`'s call ended, with the error's message; returns the error to throw. */
function ended(record: RecordedCall, outcome: 'error' | 'aborted', error: ToolexecError): ToolexecError {
  record.outcome = outcome;
  record.error = error.message;
  return error;
}

/** `testing: the call timed out: …` (TIMEOUT) or `testing: the call aborted: …` (ABORTED), `cause` = the reason. */
function abortedError(deadline: Deadline): ToolexecError {
  return abortError(testingErrors, deadline.reason, 'the call');
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return value !== null && typeof value === 'object' && Array.isArray((value as { content?: unknown }).content);
}

/** The value of scripted tool `tool` as an MCP result; a value that is not JSON fails the call (CONFIGURATION). */
function toCallToolResult(tool: string, value: unknown): CallToolResult {
  if (isCallToolResult(value)) return value;
  if (value === undefined) return { content: [] };
  const notJson = (why: string, cause?: unknown) =>
    testingErrors('CONFIGURATION', `the scripted MCP tool "${tool}" returned a value that is not JSON: ${why}`, { cause });
  let text: string | undefined;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  } catch (err) {
    throw notJson(errorMessage(err), err);
  }
  if (text === undefined) throw notJson(`a ${typeof value}`);
  // MCP's structuredContent is an object: an array, like any other JSON value, is a text result only
  const structured =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? { structuredContent: value as Record<string, unknown> } : {};
  return { content: [{ type: 'text', text }], ...structured };
}

/** Progress events while the call runs, then the final event `finish` makes of its value. */
async function* streamOf<T>(
  options: RunOptions | undefined,
  call: (options: RunOptions) => Promise<T>,
  finish: (value: T) => StreamEvent,
): AsyncGenerator<StreamEvent> {
  const queue: StreamEvent[] = [];
  let wake: (() => void) | undefined;
  // the call's own signal: follows the caller's, and stops the call when the consumer stops reading
  const link = linkedSignal(options?.signal);
  let settled: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  const pending = call({
    ...(options?.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options?.deadline === undefined ? {} : { deadline: options.deadline }),
    signal: link.signal,
    onProgress: (progress) => {
      queue.push({ kind: 'progress', data: progress });
      wake?.();
    },
  }).then(
    (value) => {
      settled = { ok: true, value };
      wake?.();
    },
    (error: unknown) => {
      settled = { ok: false, error };
      wake?.();
    },
  );
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift() as StreamEvent;
      if (settled !== undefined) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    await pending;
    const outcome = settled;
    if (!outcome.ok) throw outcome.error;
    yield finish(outcome.value);
  } finally {
    if (settled === undefined) link.abort(new Error('stream consumer stopped'));
    link.dispose();
  }
}
