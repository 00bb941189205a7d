import { ToolexecError, type Tool } from '../../src/model/index.js';
import type { Backend, BackendCallOptions } from '../../src/backend/index.js';

/** A Backend double (backends are user-implemented): records calls, fails on demand. */
export class TestBackend implements Backend {
  readonly calls: Array<{ toolName: string; args: Record<string, unknown>; options: BackendCallOptions | undefined }> = [];
  started = 0;
  stopped = 0;
  startError: Error | undefined;
  stopError: Error | undefined;
  listError: Error | undefined;
  enabled: boolean;

  constructor(
    readonly name: string,
    readonly kind = 'test',
    readonly tools: Tool[] = [],
    enabled = true,
  ) {
    this.enabled = enabled;
  }

  async listTools(): Promise<Tool[]> {
    if (this.listError !== undefined) throw this.listError;
    return this.tools;
  }

  async execute(toolName: string, args: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown> {
    this.calls.push({ toolName, args, options });
    return { backend: this.name, tool: toolName, args };
  }

  async start(): Promise<void> {
    this.started++;
    if (this.startError !== undefined) throw this.startError;
  }

  async stop(): Promise<void> {
    this.stopped++;
    if (this.stopError !== undefined) throw this.stopError;
  }
}

export function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, inputSchema: { type: 'object' }, ...extra };
}

/** How many timers hold the process open right now. */
export function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The rejection of `promise` as a ToolexecError, and how long it took to settle; fails when it resolves or rejects with anything else. */
export async function timedFailure(promise: Promise<unknown>): Promise<{ error: ToolexecError; ms: number }> {
  const started = performance.now();
  try {
    await promise;
  } catch (err) {
    if (ToolexecError.isInstance(err)) return { error: err, ms: performance.now() - started };
    throw err;
  }
  throw new Error('expected a rejection');
}
