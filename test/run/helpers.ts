import { createToolIndex, type ToolIndex } from '../../src/discovery/index.js';
import {
  ToolexecError,
  createSchemaValidator,
  localBackend,
  mcpBackend,
  providerBackend,
  type SchemaValidator,
  type Tool,
  type ToolBackend,
} from '../../src/model/index.js';
import type { CallToolResult, McpExecutor, ProviderExecutor, RunOptions, StreamEvent } from '../../src/run/index.js';

export const objectSchema = { type: 'object' } as const;

/** A tool with an open object input schema. */
export function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, inputSchema: { type: 'object' }, ...extra };
}

/** The echo tool of the integration tests: a required string `message`, output `{ echoed }`. */
export const echoTool: Tool = {
  name: 'echo',
  namespace: 'demo',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  outputSchema: { type: 'object', properties: { echoed: { type: 'string' } }, required: ['echoed'] },
};

/** A real index holding `regs`. */
export function indexWith(...regs: Array<[Tool, ToolBackend]>): ToolIndex {
  const index = createToolIndex();
  for (const [t, b] of regs) index.registerTool(t, b);
  return index;
}

export { localBackend, mcpBackend, providerBackend };

/** A SchemaValidator double (an injected interface) that counts calls and fails on demand. */
export class RecordingValidator implements SchemaValidator {
  inputCalls = 0;
  outputCalls = 0;
  inputError: Error | undefined;
  outputError: Error | undefined;
  readonly outputs: unknown[] = [];

  validateInput(_tool: Tool, _args: unknown): void {
    this.inputCalls++;
    if (this.inputError !== undefined) throw this.inputError;
  }

  validateOutput(_tool: Tool, value: unknown): void {
    this.outputCalls++;
    this.outputs.push(value);
    if (this.outputError !== undefined) throw this.outputError;
  }

  validate(): void {}
}

/** The library's default validator. */
export function realValidator(): SchemaValidator {
  return createSchemaValidator();
}

interface McpCall {
  serverName: string;
  params: { name: string; arguments?: Record<string, unknown> };
  options: RunOptions | undefined;
}

/** An McpExecutor double: records calls, answers with `result` (or a function of the call). */
export class FakeMcpExecutor implements McpExecutor {
  readonly calls: McpCall[] = [];
  readonly streamCalls: McpCall[] = [];
  result: CallToolResult | null | ((call: McpCall) => Promise<CallToolResult> | CallToolResult) = { content: [] };
  error: Error | undefined;
  events: StreamEvent[] = [];
  streamError: Error | undefined;

  async callTool(
    serverName: string,
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RunOptions,
  ): Promise<CallToolResult> {
    const call = { serverName, params, options };
    this.calls.push(call);
    if (this.error !== undefined) throw this.error;
    const result = this.result;
    return (typeof result === 'function' ? await result(call) : result) as CallToolResult;
  }

  callToolStream(
    serverName: string,
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RunOptions,
  ): AsyncIterable<StreamEvent> {
    this.streamCalls.push({ serverName, params, options });
    if (this.streamError !== undefined) throw this.streamError;
    const events = this.events;
    return (async function* () {
      for (const event of events) yield event;
    })();
  }
}

interface ProviderCall {
  providerId: string;
  toolId: string;
  args: Record<string, unknown>;
  options: RunOptions | undefined;
}

/** A ProviderExecutor double. */
export class FakeProviderExecutor implements ProviderExecutor {
  readonly calls: ProviderCall[] = [];
  result: unknown = { ok: true };
  events: StreamEvent[] = [];

  async callTool(providerId: string, toolId: string, args: Record<string, unknown>, options?: RunOptions): Promise<unknown> {
    this.calls.push({ providerId, toolId, args, options });
    return this.result;
  }

  callToolStream(providerId: string, toolId: string, args: Record<string, unknown>, options?: RunOptions): AsyncIterable<StreamEvent> {
    this.calls.push({ providerId, toolId, args, options });
    const events = this.events;
    return (async function* () {
      for (const event of events) yield event;
    })();
  }
}

/** Rejection of `promise`, failing the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<ToolexecError> {
  try {
    await promise;
  } catch (err) {
    if (!ToolexecError.isInstance(err)) throw new Error(`rejected with a non-ToolexecError: ${String(err)}`, { cause: err });
    return err;
  }
  throw new Error('expected a rejection, got a result');
}

/** All events of a stream, or the error it throws (with the events before it). */
export async function collect(stream: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error?: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How many timers are alive right now. */
export function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}
