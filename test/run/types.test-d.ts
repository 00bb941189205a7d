import { describe, expectTypeOf, it } from 'vitest';
import type { ToolBackend, ToolexecError } from '../../src/model/index.js';
import {
  createRunner,
  type ChainError,
  type ChainResult,
  type LocalHandler,
  type LocalHandlerContext,
  type ProgressEvent,
  type ProgressStreamEvent,
  type RunResult,
  type Runner,
  type StepResult,
  type StreamEvent,
  type StreamEventKind,
  type ToolError,
  type ToolErrorOp,
} from '../../src/run/index.js';

describe('run types', () => {
  it('StreamEvent kinds are the four Go values', () => {
    expectTypeOf<StreamEventKind>().toEqualTypeOf<'progress' | 'chunk' | 'done' | 'error'>();
    expectTypeOf<StreamEvent['kind']>().toEqualTypeOf<StreamEventKind>();
    expectTypeOf<StreamEvent['error']>().toEqualTypeOf<ToolexecError | undefined>();
    expectTypeOf<StreamEvent['toolId']>().toEqualTypeOf<string | undefined>();
  });

  it('StreamEvent narrows on kind: progress carries a ProgressEvent, error a ToolexecError', () => {
    const read = (event: StreamEvent): unknown => {
      switch (event.kind) {
        case 'progress':
          expectTypeOf(event).toEqualTypeOf<ProgressStreamEvent>();
          expectTypeOf(event.data).toEqualTypeOf<ProgressEvent>();
          expectTypeOf(event.data.total).toEqualTypeOf<number | undefined>();
          return event.data.progress;
        case 'error':
          expectTypeOf(event.error).toEqualTypeOf<ToolexecError>();
          return event.error.code;
        case 'chunk':
        case 'done':
          expectTypeOf(event.error).toEqualTypeOf<undefined>();
          return event.data;
        default:
          expectTypeOf(event).toBeNever();
          return undefined;
      }
    };
    expectTypeOf(read).toBeFunction();
    // @ts-expect-error a progress event carries its report
    const bare: StreamEvent = { kind: 'progress' };
    // @ts-expect-error an error event carries its error
    const noError: StreamEvent = { kind: 'error' };
    void bare;
    void noError;
  });

  it('ToolError carries toolId, op, an optional backend, and is a ToolexecError', () => {
    expectTypeOf<ToolError>().toMatchTypeOf<ToolexecError>();
    expectTypeOf<ToolError['toolId']>().toEqualTypeOf<string>();
    expectTypeOf<ToolError['op']>().toEqualTypeOf<ToolErrorOp>();
    expectTypeOf<ToolError['backend']>().toEqualTypeOf<ToolBackend | undefined>();
    expectTypeOf<ToolErrorOp>().toEqualTypeOf<
      'validate_tool_id' | 'resolve' | 'select_backend' | 'validate_input' | 'execute' | 'validate_output' | 'stream'
    >();
    expectTypeOf<ChainError>().toMatchTypeOf<ToolError>();
    expectTypeOf<ChainError['steps']>().toEqualTypeOf<StepResult[]>();
  });

  it('LocalHandler receives args and a ctx with signal, toolId and optional onProgress', () => {
    expectTypeOf<Parameters<LocalHandler>[0]>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<Parameters<LocalHandler>[1]>().toEqualTypeOf<LocalHandlerContext>();
    expectTypeOf<LocalHandlerContext['signal']>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<LocalHandlerContext['toolId']>().toEqualTypeOf<string>();
    expectTypeOf<LocalHandlerContext['onProgress']>().toEqualTypeOf<((progress: ProgressEvent) => void) | undefined>();
    const sync: LocalHandler = (args) => args.x;
    const async_: LocalHandler = async (_args, ctx) => ctx.toolId;
    const streaming: LocalHandler = async function* () {
      yield 1;
    };
    expectTypeOf(sync).toBeFunction();
    expectTypeOf(async_).toBeFunction();
    expectTypeOf(streaming).toBeFunction();
  });

  it('the runner methods have the API.md signatures', () => {
    const runner = createRunner();
    expectTypeOf(runner).toMatchTypeOf<Runner>();
    expectTypeOf<ReturnType<Runner['run']>>().toEqualTypeOf<Promise<RunResult>>();
    expectTypeOf<ReturnType<Runner['runStream']>>().toEqualTypeOf<AsyncIterable<StreamEvent>>();
    expectTypeOf<ReturnType<Runner['runChain']>>().toEqualTypeOf<Promise<ChainResult>>();
  });

  it('a chain result has a result exactly when it ran a step', () => {
    const read = (chain: ChainResult): RunResult | undefined => {
      if (chain.result === undefined) {
        expectTypeOf(chain.steps).toEqualTypeOf<[]>();
        return undefined;
      }
      expectTypeOf(chain.result).toEqualTypeOf<RunResult>();
      return chain.result;
    };
    expectTypeOf(read).returns.toEqualTypeOf<RunResult | undefined>();
    expectTypeOf<RunResult['structured']>().toEqualTypeOf<unknown>();
  });
});
