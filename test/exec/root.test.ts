import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';

describe('the package root (toolexec)', () => {
  it('re-exports the facade and the most used names, explicitly', () => {
    expect(Object.keys(root).sort()).toEqual(
      [
        'ChainError',
        'DEFAULT_MAX_TOOL_CALLS',
        'DEFAULT_SECURITY_PROFILE',
        'DEFAULT_TIMEOUT_MS',
        'DefaultExec',
        'ERROR_CODES',
        'ExecChainError',
        'ToolError',
        'ToolexecError',
        'createExec',
        'defineLocalTool',
        'defineTool',
        'durationOf',
        'errorStatus',
        'findError',
        'hasErrorCode',
        'parseToolId',
        'toErrorShape',
        'toolId',
      ].sort(),
    );
  });

  it('works end to end from the root alone', async () => {
    const tool = root.defineTool({
      name: 'upper',
      namespace: 'text',
      inputSchema: { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] },
    });
    const exec = root.createExec({ tools: [{ tool, handler: (args) => String(args.s).toUpperCase() }] });
    try {
      expect(root.toolId(tool)).toBe('text:upper');
      expect((await exec.runTool('text:upper', { s: 'abc' })).value).toBe('ABC');
      const error = await exec.runTool('text:upper', {}).catch((e: unknown) => e);
      expect(root.hasErrorCode(error, 'VALIDATION')).toBe(true);
      expect(root.toErrorShape(error)).toMatchObject({ status: 'Error', error: { code: 'VALIDATION' } });
    } finally {
      await exec.close();
    }
  });
});
