/**
 * MCP requests in traces: a client span per request (`tools/call {tool}`, `tools/list`) and the
 * W3C trace context in the request's `params._meta` (`traceparent`, `tracestate`), as the MCP
 * trace-context proposal carries it, so a server's own spans join the caller's trace.
 *
 * @internal
 * @module
 */
import { ToolexecError } from '../model/index.js';
import { scrubText, textOf } from '../model/internal.js';
import { SPAN_KIND, endSpanError, endSpanOk, otelRegistered, startSpan, traceCarrier, withContext } from '../run/internal.js';
import { errors } from './errors.js';

/** A JSON-RPC request as the SDK client sends it. */
interface McpRequest {
  method: string;
  params?: { _meta?: Record<string, unknown>; [key: string]: unknown };
}

/** How a failed request is recorded on its span. */
export interface SpanFailure {
  /** The library error a raw failure stands for (what the caller will get); absent: every failure is one already. */
  map?: (error: unknown) => ToolexecError;
  /**
   * The values to scrub out of the recorded message (see `SpanRedaction`); a throw (arguments that
   * cannot be read) withholds the message.
   */
  secrets: () => readonly string[];
}

/**
 * Sends `request` through `send` inside a client span, with the span's trace context added to
 * `params._meta` (a copy: the caller's request is not changed). A failure ends the span with a
 * library error (`failure.map` for a raw one), its message scrubbed of `failure.secrets()` and
 * cut at 4 KiB; the caller still gets the error as it was. Without a registered provider:
 * `send(request)` as it is.
 */
export function traceMcpRequest<R extends McpRequest, T>(
  serverName: string,
  request: R,
  send: (request: R) => Promise<T>,
  failure: SpanFailure,
): Promise<T> {
  if (!otelRegistered()) return send(request);
  const tool = typeof request.params?.name === 'string' ? textOf(request.params.name) : undefined;
  const active = startSpan(tool === undefined ? request.method : `${request.method} ${tool}`, SPAN_KIND.CLIENT, {
    'mcp.method.name': request.method,
    'rpc.system': 'jsonrpc',
    'toolexec.mcp.server': serverName,
    ...(tool === undefined ? {} : { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' }),
  });
  if (active === undefined) return send(request);
  const carrier = traceCarrier(active.context);
  const traced = { ...request, params: { ...request.params, _meta: { ...request.params?._meta, ...carrier } } };
  return withContext(active.context, send, traced).then(
    (result) => {
      endSpanOk(active);
      return result;
    },
    (err: unknown) => {
      endSpanError(active, recordedError(err, failure));
      throw err;
    },
  );
}

/**
 * The error a failed request's span records: a library error with a scrubbed message (bounded by
 * `endSpanError`, which cuts every recorded message at 5 KiB with `capText`).
 */
function recordedError(err: unknown, failure: SpanFailure): ToolexecError {
  let mapped: ToolexecError;
  try {
    mapped = ToolexecError.isInstance(err) ? err : (failure.map?.(err) ?? errors('EXECUTION', 'the request failed'));
  } catch {
    mapped = errors('EXECUTION', 'the request failed');
  }
  let message: string;
  try {
    message = scrubText(mapped.message, failure.secrets());
  } catch {
    message = `${mapped.code}: the message is withheld (the arguments to redact it by could not be read)`;
  }
  const recorded = new ToolexecError(mapped.code, message);
  recorded.name = mapped.name;
  return recorded;
}
