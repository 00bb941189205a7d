import { type ToolexecError } from '../model/index.js';
import { linkedSignal } from '../model/internal.js';
import { MAX_QUEUED_PROGRESS } from '../run/internal.js';
import { normalizeMcpResult, type CallToolResult, type McpExecutor, type RunOptions, type StreamEvent } from '../run/index.js';
import type { McpCallParams } from './types.js';
import { readMcpCallOptions } from './call-budget.js';
import { errors } from './errors.js';

/**
 * The stream of one `tools/call`: `progress` events, then `done` (the normalized result) or an
 * `error` event for an `isError` result. Of the reports waiting unread, at most
 * `MAX_QUEUED_PROGRESS` (1,024), the newest, are kept. Transport failures, timeouts and aborts reject the
 * iteration. Ending the iteration early aborts the request (the server gets `notifications/cancelled`).
 */
export function streamToolCall(
  executor: McpExecutor,
  serverName: string,
  params: McpCallParams,
  options: RunOptions,
): AsyncIterable<StreamEvent> {
  return {
    [Symbol.asyncIterator]: () => run(executor, serverName, params, options),
  };
}

async function* run(
  executor: McpExecutor,
  serverName: string,
  params: McpCallParams,
  options: RunOptions,
): AsyncGenerator<StreamEvent, void, undefined> {
  const read = readMcpCallOptions(options);
  const link = linkedSignal(read.signal);

  const queue: StreamEvent[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  let outcome: { ok: true; result: CallToolResult } | { ok: false; error: unknown } | undefined;
  const onProgress = read.onProgress;
  const callOptions: RunOptions = {
    signal: link.signal,
    onProgress: (progress) => {
      onProgress?.(progress);
      queue.push({ kind: 'progress', data: progress });
      // Only reports wait here: past the bound the oldest goes, as on a local handler's stream.
      if (queue.length > MAX_QUEUED_PROGRESS) queue.shift();
      wake?.();
    },
  };
  // The budget and the key go on as given (the call checks them): the deadline cuts the request's
  // timeout to the time left, and the server gets the key in `_meta`.
  if (read.timeoutMs !== undefined) callOptions.timeoutMs = read.timeoutMs as number;
  if (read.deadline !== undefined) callOptions.deadline = read.deadline as number | Date;
  if (read.idempotencyKey !== undefined) callOptions.idempotencyKey = read.idempotencyKey;
  const call = executor.callTool(serverName, params, callOptions).then(
    (result) => {
      outcome = { ok: true, result };
    },
    (error: unknown) => {
      outcome = { ok: false, error };
    },
  );
  void call.finally(() => {
    settled = true;
    wake?.();
  });

  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (settled) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    if (outcome === undefined || !outcome.ok) throw outcome?.error;
    const result = outcome.result;
    if (result.isError === true) {
      yield { kind: 'error', error: toolFailure(serverName, params.name, result) };
      return;
    }
    yield { kind: 'done', data: normalizeMcpResult(result) };
  } finally {
    if (!settled) {
      link.abort(errors('ABORTED', `The stream of "${params.name}" on MCP server "${serverName}" was closed early`));
    }
    link.dispose();
  }
}

/** EXECUTION for a result with `isError: true`, carrying the server's text. */
export function toolFailure(serverName: string, toolName: string, result: CallToolResult): ToolexecError {
  const text = (result.content ?? [])
    .map((item) => (item.type === 'text' ? item.text : ''))
    .filter((t) => t !== '')
    .join('\n');
  return errors('EXECUTION', `Tool "${toolName}" on MCP server "${serverName}" failed: ${text === '' ? '(no message)' : text}`, {
    details: { serverName, tool: toolName, result },
  });
}
