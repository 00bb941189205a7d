import { describe, expect, it } from 'vitest';
import { ToolexecError, hasErrorCode, localBackend, mcpBackend } from '../../src/model/index.js';
import { ChainError, TOOL_ERROR_OPS, ToolError, formatToolErrorMessage } from '../../src/run/index.js';

describe('ToolError', () => {
  it('case 56: with a backend the message is "run: <op> <id> [<kind>]: <reason>"', () => {
    const inner = new Error('connection reset');
    const err = new ToolError({
      code: 'EXECUTION',
      op: 'execute',
      toolId: 'ns:tool',
      backend: mcpBackend('srv'),
      reason: 'execution error: connection reset',
      cause: inner,
    });
    expect(err.message).toBe('run: execute ns:tool [mcp]: execution error: connection reset');
    expect(err.toolId).toBe('ns:tool');
    expect(err.op).toBe('execute');
    expect(err.backend).toEqual(mcpBackend('srv'));
    expect(err.reason).toBe('execution error: connection reset');
    expect(err.code).toBe('EXECUTION');
    expect(err.name).toBe('ToolError');
  });

  it('case 57: without a backend the message is "run: <op> <id>: <reason>"', () => {
    const err = new ToolError({ code: 'TOOL_NOT_FOUND', op: 'resolve', toolId: 'x', reason: 'tool not found' });
    expect(err.message).toBe('run: resolve x: tool not found');
    expect(err.backend).toBeUndefined();
    expect('backend' in err).toBe(false);
  });

  it('case 57: an empty tool ID keeps the double space of Go', () => {
    expect(formatToolErrorMessage('validate_tool_id', '', undefined, 'invalid tool id')).toBe('run: validate_tool_id : invalid tool id');
  });

  it('case 58: a local backend shows as [local]', () => {
    const err = new ToolError({ code: 'EXECUTION', op: 'execute', toolId: 't', backend: localBackend('h'), reason: 'boom' });
    expect(err.message).toContain('[local]');
  });

  it('case 59/61 (TS): the cause is kept and hasErrorCode walks it; unrelated codes do not match', () => {
    const inner = new ToolexecError('TOOL_NOT_FOUND', 'tool not found');
    const err = new ToolError({ code: 'EXECUTION', op: 'execute', toolId: 't', reason: 'x', cause: inner });
    expect(err.cause).toBe(inner);
    expect(hasErrorCode(err, 'EXECUTION')).toBe(true);
    expect(hasErrorCode(err, 'TOOL_NOT_FOUND')).toBe(true);
    expect(hasErrorCode(err, 'VALIDATION')).toBe(false);
    const plain = new ToolError({ code: 'EXECUTION', op: 'execute', toolId: 't', reason: 'x' });
    expect(hasErrorCode(plain, 'TOOL_NOT_FOUND')).toBe(false);
  });

  it('is a ToolexecError, recognised by isInstance and isToolError', () => {
    const err = new ToolError({ code: 'EXECUTION', op: 'execute', toolId: 't', reason: 'x' });
    expect(err).toBeInstanceOf(ToolexecError);
    expect(err).toBeInstanceOf(Error);
    expect(ToolexecError.isInstance(err)).toBe(true);
    expect(ToolError.isToolError(err)).toBe(true);
    expect(ToolError.isToolError(new ToolexecError('EXECUTION', 'x'))).toBe(false);
    expect(ToolError.isToolError(new Error('x'))).toBe(false);
  });

  it('serializes tool ID, op and backend; details are kept', () => {
    const err = new ToolError({
      code: 'VALIDATION',
      op: 'validate_input',
      toolId: 't',
      backend: localBackend('h'),
      reason: 'validation error: bad',
      details: { violations: [] },
      cause: new Error('inner'),
    });
    const json = JSON.parse(JSON.stringify(err)) as Record<string, unknown>;
    expect(json).toMatchObject({
      code: 'VALIDATION',
      toolId: 't',
      op: 'validate_input',
      backend: localBackend('h'),
      details: { violations: [] },
    });
    expect(json.cause).toEqual({ name: 'Error', message: 'inner' });
  });

  it('lists the seven ops in pipeline order', () => {
    expect(TOOL_ERROR_OPS).toEqual([
      'validate_tool_id',
      'resolve',
      'select_backend',
      'validate_input',
      'execute',
      'validate_output',
      'stream',
    ]);
  });
});

describe('ChainError', () => {
  it('copies code, op, tool ID, backend and details from the failed step and keeps it as cause', () => {
    const stepError = new ToolError({
      code: 'VALIDATION',
      op: 'validate_input',
      toolId: 'b',
      backend: localBackend('hb'),
      reason: 'validation error: x',
      details: { violations: [{ code: 'RequiredMissing', field: '/x', message: 'm' }] },
    });
    const steps = [
      { toolId: 'a', backend: localBackend('ha') },
      { toolId: 'b', backend: localBackend('hb'), error: stepError },
    ];
    const err = new ChainError(stepError, steps, 1);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.name).toBe('ChainError');
    expect(err.code).toBe('VALIDATION');
    expect(err.op).toBe('validate_input');
    expect(err.toolId).toBe('b');
    expect(err.backend).toEqual(localBackend('hb'));
    expect(err.cause).toBe(stepError);
    expect(err.steps).toBe(steps);
    expect(err.stepIndex).toBe(1);
    expect(err.details).toEqual(stepError.details);
    expect(err.message).toBe(`run: chain step 1 (b): ${stepError.message}`);
    expect(hasErrorCode(err, 'VALIDATION')).toBe(true);
  });
});
