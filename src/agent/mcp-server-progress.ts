/**
 * The run's progress as MCP progress notifications, for the MCP server of `createMcpServer`.
 */
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ProgressEvent } from '../run/index.js';

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
