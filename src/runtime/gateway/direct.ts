/**
 * The direct gateway: tool discovery and execution in the same process, over an index, a doc
 * store and a runner, with call budgets and a trace.
 */
import type { ToolexecError } from '../../model/index.js';
import { runtimeError } from '../core/errors.js';
import type { DetailLevel, DocStore, ToolDoc, ToolExample, ToolIndex, ToolSummary } from '../../discovery/index.js';
import type { ChainResult, ChainStep, RunResult, Runner } from '../../run/index.js';
import type { GatewayCallOptions, ToolCallRecord, ToolGateway } from '../core/types.js';
import { emptyChainResult } from './empty-chain.js';
import { createTracingGateway, type TracingGateway } from './tracing.js';

/** Options of {@link createDirectGateway}. */
export interface DirectGatewayOptions {
  /** Answers `searchTools` and `listNamespaces`. */
  index: ToolIndex;
  /** Answers `describeTool` and `listToolExamples`. */
  docs: DocStore;
  /** Runs tools and chains. */
  runner: Runner;
  /** Most tool calls over the gateway's life (until {@link DirectGateway.reset}); 0 or absent: unlimited. */
  maxToolCalls?: number;
  /** Most steps per chain; 0 or absent: unlimited. */
  maxChainSteps?: number;
}

/** The untraced gateway: plain delegation. */
class LocalGateway implements ToolGateway {
  constructor(
    private readonly index: ToolIndex,
    private readonly docs: DocStore,
    private readonly runner: Runner,
  ) {}

  async searchTools(query: string, limit: number): Promise<ToolSummary[]> {
    return this.index.search(query, limit);
  }

  async listNamespaces(): Promise<string[]> {
    return this.index.listNamespaces();
  }

  async describeTool(id: string, level: DetailLevel): Promise<ToolDoc> {
    return this.docs.describeTool(id, level);
  }

  async listToolExamples(id: string, max: number): Promise<ToolExample[]> {
    return this.docs.listExamples(id, max);
  }

  async runTool(id: string, args?: Record<string, unknown>, options?: GatewayCallOptions): Promise<RunResult> {
    return this.runner.run(id, args, runOptionsOf(options));
  }

  async runChain(steps: readonly ChainStep[], options?: GatewayCallOptions): Promise<ChainResult> {
    if (steps === undefined || steps === null || steps.length === 0) return emptyChainResult();
    return this.runner.runChain(steps, runOptionsOf(options));
  }
}

/**
 * A {@link ToolGateway} answering from an index, a doc store and a runner in this process.
 *
 * @remarks
 * Every method checks its `signal` first (`ABORTED`). `runTool` and `runChain` go through the
 * same budget and trace logic as {@link createTracingGateway}: `maxToolCalls` counts single runs
 * and executed chain steps (`LIMIT_EXCEEDED`), `maxChainSteps` caps a chain's length, and every
 * call is recorded — failures too, with the failing backend's kind. An empty chain runs nothing
 * and counts nothing. Safe for concurrent use.
 */
export class DirectGateway implements ToolGateway {
  readonly #traced: TracingGateway;

  constructor(options: DirectGatewayOptions) {
    const { index, docs, runner } = options ?? ({} as DirectGatewayOptions);
    const missing = [
      ...(index === undefined || index === null ? ['index'] : []),
      ...(docs === undefined || docs === null ? ['docs'] : []),
      ...(runner === undefined || runner === null ? ['runner'] : []),
    ];
    if (missing.length > 0) {
      throw runtimeError('CONFIGURATION', `configuration error: missing required fields: ${missing.join(', ')}`, {
        details: { missing },
      });
    }
    this.#traced = createTracingGateway(new LocalGateway(index, docs, runner), {
      ...(options.maxToolCalls === undefined ? {} : { maxToolCalls: options.maxToolCalls }),
      ...(options.maxChainSteps === undefined ? {} : { maxChainSteps: options.maxChainSteps }),
    });
  }

  searchTools(query: string, limit: number, options?: GatewayCallOptions): Promise<ToolSummary[]> {
    return this.#traced.searchTools(query, limit, options);
  }

  listNamespaces(options?: GatewayCallOptions): Promise<string[]> {
    return this.#traced.listNamespaces(options);
  }

  describeTool(id: string, level: DetailLevel, options?: GatewayCallOptions): Promise<ToolDoc> {
    return this.#traced.describeTool(id, level, options);
  }

  listToolExamples(id: string, max: number, options?: GatewayCallOptions): Promise<ToolExample[]> {
    return this.#traced.listToolExamples(id, max, options);
  }

  runTool(id: string, args?: Record<string, unknown>, options?: GatewayCallOptions): Promise<RunResult> {
    return this.#traced.runTool(id, args, options);
  }

  runChain(steps: readonly ChainStep[], options?: GatewayCallOptions): Promise<ChainResult> {
    return this.#traced.runChain(steps, options);
  }

  /** A copy of the calls recorded so far. */
  getToolCalls(): ToolCallRecord[] {
    return this.#traced.toolCalls;
  }

  /** The first budget error a call met (`LIMIT_EXCEEDED`), even one the caller caught; see {@link TracingGateway.limitError}. */
  get limitError(): ToolexecError | undefined {
    return this.#traced.limitError;
  }

  /** Zeroes the call counter and forgets the records. */
  reset(): void {
    this.#traced.reset();
  }
}

/** Creates a {@link DirectGateway}. @throws `CONFIGURATION` when index, docs or runner is missing. */
export function createDirectGateway(options: DirectGatewayOptions): DirectGateway {
  return new DirectGateway(options);
}

/** A gateway call's signal and deadline, as the runner's options (the runner hands the time left to MCP servers). */
function runOptionsOf(options: GatewayCallOptions | undefined): { signal?: AbortSignal; deadline?: number } {
  if (options === undefined) return {};
  const { signal, deadline } = options;
  if (deadline === undefined) return signal === undefined ? {} : { signal };
  return signal === undefined ? { deadline } : { signal, deadline };
}
