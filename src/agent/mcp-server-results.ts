/**
 * What the MCP server of `createMcpServer` answers: a run's `Result` as a `CallToolResult`, a
 * failure as an `isError` result a model can act on, and the run's progress as MCP progress
 * notifications.
 */
import type { CallToolResult, ContentBlock, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { ToolexecError, errorMessage, type Tool } from '../model/index.js';
import type { ProgressEvent } from '../run/index.js';
import type { Result } from '../exec/index.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A successful run as MCP's tool result: the content blocks an MCP tool sent (kept as they are),
 * otherwise the value as text (a string as itself, anything else as JSON); `structuredContent` when
 * the value is an object — always for a tool with an output schema (the runner has checked it).
 */
export function toCallToolResult(result: Result, tool: Tool): CallToolResult {
  const { value } = result;
  const content: ContentBlock[] =
    result.content !== undefined && result.content.length > 0
      ? result.content
      : value === undefined
        ? []
        : [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
  const answer: CallToolResult = { content };
  if (isPlainObject(value) && (tool.outputSchema !== undefined || result.content === undefined || result.content.length === 0)) {
    answer.structuredContent = value;
  }
  return answer;
}

/**
 * A failed run as an `isError` result (MCP: errors a model can correct are results, not protocol
 * errors). The text names the error's code and its message — for `VALIDATION`, every violation
 * with its field and what was expected — and what to do about it.
 */
export function toErrorResult(error: unknown): CallToolResult {
  const code = ToolexecError.isInstance(error) ? error.code : undefined;
  let text = code === undefined ? `Error: ${errorMessage(error)}` : `${code}: ${error instanceof Error ? error.message : String(error)}`;
  if (code === 'VALIDATION') text += '\nCall the tool again with arguments that match its input schema.';
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * Turns the run's progress reports into `notifications/progress` for the client's token, keeping
 * only reports that advance (MCP wants the progress value to increase with each notification).
 */
export function progressForwarder(
  progressToken: string | number,
  send: (notification: ServerNotification) => Promise<void>,
): (event: ProgressEvent) => void {
  let last = -Infinity;
  return (event) => {
    if (!(event.progress > last)) return;
    last = event.progress;
    const params: { progressToken: string | number; progress: number; total?: number; message?: string } = {
      progressToken,
      progress: event.progress,
    };
    if (event.total !== undefined) params.total = event.total;
    if (event.message !== undefined) params.message = event.message;
    // Advisory: a notification that cannot be sent (the client went away) does not fail the call.
    send({ method: 'notifications/progress', params }).catch(() => undefined);
  };
}
