import { describe, expect, it } from 'vitest';
import { CodeError, codeResultOf, createCodeExecutor, type CodeResult } from '../../src/code/index.js';
import { withCodeResult } from '../../src/code/errors.js';
import { ToolexecError, hasErrorCode } from '../../src/model/index.js';
import { createRunner } from '../../src/run/index.js';
import { fixture } from './helpers.js';

describe('CodeError (cases 183, 184)', () => {
  it('puts the position in the message when the line is known (183)', () => {
    expect(new CodeError({ message: 'undefined variable', line: 3, column: 0 }).message).toBe('undefined variable (line 3, col 0)');
    expect(new CodeError({ message: 'undefined variable', line: 3, column: 7 }).message).toBe('undefined variable (line 3, col 7)');
    expect(new CodeError({ message: 'undefined variable' }).message).toBe('undefined variable');
    const error = new CodeError({ message: 'x', line: 2, column: 5 });
    expect(error.details).toEqual({ line: 2, column: 5 });
    expect([error.line, error.column, error.reason]).toEqual([2, 5, 'x']);
  });

  it('is CODE_EXECUTION, not CONFIGURATION or LIMIT_EXCEEDED, and keeps its cause (184)', () => {
    const inner = new ToolexecError('TOOL_NOT_FOUND', 'tool not found: x');
    const error = new CodeError({ message: 'failed', cause: inner });
    expect(error.code).toBe('CODE_EXECUTION');
    expect(hasErrorCode(error, 'CODE_EXECUTION')).toBe(true);
    expect(hasErrorCode(error, 'CONFIGURATION')).toBe(false);
    expect(hasErrorCode(error, 'LIMIT_EXCEEDED')).toBe(false);
    expect(error.cause).toBe(inner);
    expect(hasErrorCode(error, 'TOOL_NOT_FOUND')).toBe(true);
  });
});

describe('partial results on failures', () => {
  const partial: CodeResult = { stdout: 'so far', stderr: '', toolCalls: [], durationMs: 1 };

  it('withCodeResult keeps code, message and details, replaces details.result and lifts the cause', () => {
    const timeout = new ToolexecError('TIMEOUT', 'timed out');
    const limit = new ToolexecError('LIMIT_EXCEEDED', 'limit exceeded: timed out', {
      cause: timeout,
      details: { limit: 'timeout', result: { stdout: 'engine' } },
    });
    const error = withCodeResult(limit, partial);
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toBe('limit exceeded: timed out');
    expect(error.cause).toBe(timeout);
    expect(error.details).toEqual({ limit: 'timeout', result: partial });
    expect(codeResultOf(error)).toBe(partial);
    const plain = withCodeResult(new RangeError('odd'), partial);
    expect(plain.code).toBe('CODE_EXECUTION');
    expect(plain.cause).toBeInstanceOf(RangeError);
    expect(codeResultOf(new Error('no'))).toBeUndefined();
  });
});

describe('JSON shapes (cases 185, 186)', () => {
  it('a record of a call without args or result serializes to toolId, durationMs and backendKind only (185)', async () => {
    const f = fixture();
    f.index.registerTool(
      { name: 'nothing', namespace: 'demo', inputSchema: { type: 'object' } },
      { kind: 'local', local: { name: 'nothing' } },
    );
    const runner = createRunner({ index: f.index, local: { nothing: () => undefined } });
    const code = createCodeExecutor({
      index: f.index,
      docs: f.docs,
      runner,
      engine: {
        async execute(_params, tools) {
          await tools.runTool('demo:nothing');
          return {};
        },
      },
    });
    const result = await code.executeCode({ code: 'x' });
    const record = JSON.parse(JSON.stringify(result.toolCalls[0])) as Record<string, unknown>;
    expect(Object.keys(record).sort()).toEqual(['backendKind', 'durationMs', 'toolId']);
  });

  it('a result without value serializes without a value key (186)', async () => {
    const f = fixture();
    const code = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, engine: { execute: async () => ({}) } });
    const json = JSON.parse(JSON.stringify(await code.executeCode({ code: 'x' }))) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['durationMs', 'stderr', 'stdout', 'toolCalls']);
  });
});
