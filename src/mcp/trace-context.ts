/**
 * MCP requests in traces: a client span per request (`tools/call {tool}`, `tools/list`) and the
 * W3C trace context in the request's `params._meta` (`traceparent`, `tracestate`), as the MCP
 * trace-context proposal carries it, so a server's own spans join the caller's trace.
 *
 * @internal
 * @module
 */
import { SPAN_KIND, endSpanError, endSpanOk, otelRegistered, startSpan, traceCarrier, withContext } from '../run/internal.js';

/** A JSON-RPC request as the SDK client sends it. */
interface McpRequest {
  method: string;
  params?: { _meta?: Record<string, unknown>; [key: string]: unknown };
}

/**
 * Sends `request` through `send` inside a client span, with the span's trace context added to
 * `params._meta` (a copy: the caller's request is not changed). Without a registered provider:
 * `send(request)` as it is.
 */
export function traceMcpRequest<R extends McpRequest, T>(serverName: string, request: R, send: (request: R) => Promise<T>): Promise<T> {
  if (!otelRegistered()) return send(request);
  const tool = typeof request.params?.name === 'string' ? request.params.name : undefined;
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
      endSpanError(active, err);
      throw err;
    },
  );
}
