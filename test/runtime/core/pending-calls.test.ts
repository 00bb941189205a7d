import { describe, expect, it } from 'vitest';
import { pendingCallFailure, pendingCallWarnings, readSnippetWarnings } from '../../../src/runtime/core/pending-calls.js';

describe('pending tool calls', () => {
  it('turns what a guest reported into warnings naming the method and the tool', () => {
    expect(pendingCallWarnings([{ type: 'run_tool', toolId: 'a:b' }, { type: 'run_chain' }, { type: 'search_tools', toolId: '' }])).toEqual(
      [
        {
          code: 'PENDING_TOOL_CALL',
          message: "tools.runTool('a:b') was still pending when the snippet returned: a missing await?",
          method: 'runTool',
          toolId: 'a:b',
        },
        {
          code: 'PENDING_TOOL_CALL',
          message: 'tools.runChain() was still pending when the snippet returned: a missing await?',
          method: 'runChain',
        },
        {
          code: 'PENDING_TOOL_CALL',
          message: 'tools.searchTools() was still pending when the snippet returned: a missing await?',
          method: 'searchTools',
        },
      ],
    );
  });

  it('skips anything malformed, caps the count and the tool ID length', () => {
    expect(pendingCallWarnings(undefined)).toEqual([]);
    expect(pendingCallWarnings('run_tool')).toEqual([]);
    expect(pendingCallWarnings([null, 1, { type: 'exec' }, { type: 'run_tool', toolId: 7 }])).toEqual([
      expect.objectContaining({ method: 'runTool', message: expect.stringContaining('tools.runTool()') }),
    ]);
    expect(pendingCallWarnings(Array.from({ length: 500 }, () => ({ type: 'run_tool' })))).toHaveLength(100);
    expect(pendingCallWarnings([{ type: 'run_tool', toolId: 'x'.repeat(1000) }])[0]?.toolId).toHaveLength(200);
  });

  it('reads warnings back from their JSON form, rebuilding each message', () => {
    const warnings = pendingCallWarnings([{ type: 'describe_tool', toolId: 'a:b' }]);
    expect(readSnippetWarnings(JSON.parse(JSON.stringify(warnings)))).toEqual(warnings);
    expect(readSnippetWarnings([{ code: 'PENDING_TOOL_CALL', method: 'runTool', toolId: 'x', message: 'forged' }])[0]?.message).toBe(
      "tools.runTool('x') was still pending when the snippet returned: a missing await?",
    );
    expect(
      readSnippetWarnings([
        { code: 'OTHER', method: 'runTool' },
        { code: 'PENDING_TOOL_CALL', method: 'eval' },
      ]),
    ).toEqual([]);
  });

  it('makes the strict failure name the first call and count the others', () => {
    const one = pendingCallFailure(pendingCallWarnings([{ type: 'run_tool', toolId: 'a:b' }]));
    expect(one).toEqual({
      code: 'CODE_EXECUTION',
      message: "code execution error: tools.runTool('a:b') was still pending when the snippet returned: a missing await?",
      details: { reason: 'pending_tool_call', pendingCalls: [{ method: 'runTool', toolId: 'a:b' }] },
    });
    const three = pendingCallFailure(pendingCallWarnings([{ type: 'run_tool' }, { type: 'run_tool' }, { type: 'list_namespaces' }]));
    expect(three.message).toMatch(/\(and 2 more pending calls\)$/);
  });
});
