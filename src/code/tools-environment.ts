/**
 * The tools environment of one execution: the gateway a snippet's engine calls, with the run's
 * call budget and trace, plus `println`.
 */
import { ToolexecError } from '../model/index.js';
import type { DetailLevel, ToolDoc, ToolExample, ToolSummary } from '../discovery/index.js';
import type { ChainResult, ChainStep, RunResult } from '../run/index.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../runtime/internal.js';
import { createDirectGateway, type DirectGateway, type GatewayCallOptions, type ToolCallRecord } from '../runtime/index.js';
import type { ToolsEnvironment, ToolsEnvironmentOptions } from './types.js';

const NEVER_ABORTED = new AbortController().signal;

/**
 * Formats `println` operands: strings as they are, anything else as JSON (falling back to
 * `String(value)` for what JSON cannot show: `undefined`, functions, bigints, cycles), separated by
 * single spaces. The sandbox's `console.log` formats the same way.
 */
export function formatPrintArgs(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += ' ';
    line += formatValue(values[i]);
  }
  return line;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    const json = JSON.stringify(value) as string | undefined;
    if (json !== undefined) return json;
  } catch {
    // a cycle or a bigint: fall through
  }
  return String(value);
}

/**
 * The standard {@link ToolsEnvironment}: a direct gateway (index, doc store, runner) whose tool
 * calls go through the tracing gateway's budget and trace, bound to the execution's signal.
 *
 * @remarks
 * - Budgets and trace are the runtime's `createTracingGateway` rules (safe for concurrent calls): the budget is reserved synchronously, a failed call still uses its quota,
 *   a chain reserves its steps and gets the unexecuted ones back; every call is recorded with its
 *   arguments deep-copied (chain steps: their effective arguments, `previous` included).
 * - An aborted execution fails discovery calls *and* tool calls (`ABORTED` / `TIMEOUT`) before
 *   the budget is checked.
 * - Each call runs under the execution's signal; a call that brings its own signal (a sandbox's
 *   per-call signal) runs under both.
 */
export class DefaultToolsEnvironment implements ToolsEnvironment {
  readonly #gateway: DirectGateway;
  readonly #signal: AbortSignal;
  readonly #callOptions: GatewayCallOptions;
  readonly #maxOutputBytes: number;
  /** The last call signal combined with the execution's, and the combination (a sandbox's calls share one). */
  #lastOwn: AbortSignal | undefined;
  #lastCombined: GatewayCallOptions | undefined;
  #out = '';
  #outBytes = 0;

  constructor(options: ToolsEnvironmentOptions) {
    this.#gateway = createDirectGateway({
      index: options.index,
      docs: options.docs,
      runner: options.runner,
      ...(options.maxToolCalls === undefined ? {} : { maxToolCalls: options.maxToolCalls }),
      ...(options.maxChainSteps === undefined ? {} : { maxChainSteps: options.maxChainSteps }),
    });
    this.#signal = options.signal ?? NEVER_ABORTED;
    this.#callOptions = options.deadline === undefined ? { signal: this.#signal } : { signal: this.#signal, deadline: options.deadline };
    this.#maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  }

  get signal(): AbortSignal {
    return this.#signal;
  }

  get stdout(): string {
    return this.#out;
  }

  get toolCalls(): ToolCallRecord[] {
    return this.#gateway.getToolCalls();
  }

  getToolCalls(): ToolCallRecord[] {
    return this.#gateway.getToolCalls();
  }

  /** The first budget error a tool call met (`LIMIT_EXCEEDED`), even one the snippet caught. */
  get limitError(): ToolexecError | undefined {
    return this.#gateway.limitError;
  }

  searchTools(query: string, limit: number, options?: GatewayCallOptions): Promise<ToolSummary[]> {
    return this.#gateway.searchTools(query, limit, this.#options(options));
  }

  listNamespaces(options?: GatewayCallOptions): Promise<string[]> {
    return this.#gateway.listNamespaces(this.#options(options));
  }

  describeTool(id: string, level: DetailLevel, options?: GatewayCallOptions): Promise<ToolDoc> {
    return this.#gateway.describeTool(id, level, this.#options(options));
  }

  listToolExamples(id: string, max: number, options?: GatewayCallOptions): Promise<ToolExample[]> {
    return this.#gateway.listToolExamples(id, max, this.#options(options));
  }

  runTool(id: string, args?: Record<string, unknown>, options?: GatewayCallOptions): Promise<RunResult> {
    return this.#gateway.runTool(id, args, this.#options(options));
  }

  runChain(steps: readonly ChainStep[], options?: GatewayCallOptions): Promise<ChainResult> {
    return this.#gateway.runChain(steps, this.#options(options));
  }

  println(...values: unknown[]): void {
    const line = `${formatPrintArgs(values)}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.#outBytes + bytes > this.#maxOutputBytes) {
      throw new ToolexecError('RESOURCE_LIMIT', `resource limit exceeded: output is larger than ${this.#maxOutputBytes} bytes`, {
        details: { limit: 'output', maxOutputBytes: this.#maxOutputBytes },
      });
    }
    this.#outBytes += bytes;
    this.#out += line;
  }

  #options(options: GatewayCallOptions | undefined): GatewayCallOptions {
    const own = options?.signal;
    if (own === undefined || own === this.#signal) return this.#callOptions;
    // A sandbox passes the same signal with every call of a run: combine it once, not per call
    // (AbortSignal.any costs tens of microseconds once a signal has many dependents).
    if (own !== this.#lastOwn || this.#lastCombined === undefined) {
      this.#lastOwn = own;
      const signal = this.#signal === NEVER_ABORTED ? own : AbortSignal.any([own, this.#signal]);
      this.#lastCombined = this.#callOptions.deadline === undefined ? { signal } : { signal, deadline: this.#callOptions.deadline };
    }
    return this.#lastCombined;
  }
}

/** Creates the tools environment of one execution. @throws `CONFIGURATION` when index, docs or runner is missing. */
export function createToolsEnvironment(options: ToolsEnvironmentOptions): DefaultToolsEnvironment {
  return new DefaultToolsEnvironment(options);
}
