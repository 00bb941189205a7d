/** Through the facade: an unknown tool ID and a misspelled argument each say what to do, in the message and in details. */
import { describe, expect, it } from 'vitest';
import { createExec } from '../../src/exec/index.js';
import { localTools, rejection } from './helpers.js';

describe('exec.runTool: failures that suggest a fix', () => {
  it('an ID without its namespace suggests the qualified one', async () => {
    const exec = createExec({ tools: localTools().tools });
    const err = await rejection(exec.runTool('greet', { name: 'x' }));
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(err.message).toContain("did you mean 'test:greet'?");
    expect(err.details).toEqual({ suggestions: ['test:greet'] });
  });

  it('a misspelled tool name suggests the registered one', async () => {
    const exec = createExec({ tools: localTools().tools });
    const err = await rejection(exec.runTool('math:dubble', {}));
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(err.details?.suggestions).toEqual(['math:double']);
  });

  it("a misspelled argument ('nme') suggests the rename to the missing 'name'", async () => {
    const exec = createExec({ tools: localTools().tools });
    const err = await rejection(exec.runTool('test:greet', { nme: 'x' }));
    expect(err.code).toBe('VALIDATION');
    expect(err.message).toContain("did you mean 'name' instead of 'nme'?");
    expect(err.details?.violations).toEqual([
      expect.objectContaining({ field: '/name', suggestion: { action: 'rename', from: '/nme', to: '/name' } }),
    ]);
  });
});
