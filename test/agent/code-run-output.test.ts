/**
 * `execute_code` is one tool to a model whichever path hands it over: the meta-tool of
 * `agentTools` / `createMcpServer` and the AI SDK's `codeTool` give the same output shape and tell
 * a failed snippet the same way (the tool calls that had already happened, what it printed).
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTools, codeTool, defineTool, metaTool, type CodeToolOutput } from '../../src/agent/index.js';
import { createExec, type DefaultExec } from '../../src/exec/index.js';

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

/** A facade with a side-effecting tool, and how much it charged. */
function payments(): { exec: DefaultExec; charged: () => number } {
  let charged = 0;
  const charge = defineTool({
    name: 'charge',
    namespace: 'pay',
    description: 'Charges a card.',
    inputSchema: z.object({ cents: z.number() }),
    handler: ({ cents }) => {
      charged += cents;
      return { ok: true };
    },
  });
  const exec = createExec({ tools: [charge] });
  open.push(exec);
  return { exec, charged: () => charged };
}

/** The error text the AI SDK sent the model for a scripted `execute_code` call. */
async function aiSdkErrorText(exec: DefaultExec, code: string): Promise<string> {
  const turns: LanguageModelV4GenerateResult[] = [
    {
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'execute_code', input: JSON.stringify({ code }) }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: USAGE,
      warnings: [],
    },
    { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] },
  ];
  let turn = 0;
  const model = new MockLanguageModelV4({ doGenerate: async () => turns[turn++]! });
  await generateText({ model, tools: { execute_code: await codeTool(exec) }, prompt: 'go', stopWhen: stepCountIs(2) });
  const message = model.doGenerateCalls[1]?.prompt.at(-1);
  const part = message?.role === 'tool' ? message.content[0] : undefined;
  const output = part?.type === 'tool-result' ? part.output : undefined;
  expect(output?.type).toBe('error-text');
  return (output as { value: string }).value;
}

describe('execute_code, from the meta-tool and from codeTool', () => {
  it('a snippet that fails after a side effect tells the model which calls already happened and what it printed', async () => {
    const { exec, charged } = payments();
    const code = "await tools.runTool('pay:charge', { cents: 500 }); console.log('charged'); throw new Error('formatting failed');";
    const agent = await agentTools(exec, { format: 'anthropic', meta: true });
    const meta = await agent.call('execute_code', { code }, { callId: 't1' });
    expect(meta.is_error).toBe(true);
    const text = (meta.content[0] as { text: string }).text;
    expect(text).toMatch(/^Error \(CODE_EXECUTION\): .*formatting failed/u);
    expect(text).toContain('Tool calls that had already succeeded (their effects happened): pay:charge');
    expect(text).toContain('What it printed before failing:\ncharged');
    expect(charged()).toBe(500);
    // the AI SDK's codeTool: the same text, word for word
    expect(await aiSdkErrorText(exec, code)).toBe(text);
    expect(charged()).toBe(1000);
  }, 60_000);

  it('returns one shape: each tool called, once, with how many calls and how many failed', async () => {
    const { exec } = payments();
    const code = [
      "await tools.runTool('pay:charge', { cents: 1 });",
      "try { await tools.runTool('pay:charge', { cents: 'x' }); } catch {}",
      "await tools.runTool('pay:charge', { cents: 2 });",
      'return 3;',
    ].join('\n');
    const expected: CodeToolOutput = { value: 3, toolCalls: [{ id: 'pay:charge', count: 3, failed: 1 }] };
    const { value } = await metaTool(exec, 'execute_code').run({ code });
    expect(value).toEqual(expected);
    const tool = (await codeTool(exec)) as { execute: (input: { code: string }, options: object) => Promise<unknown> };
    expect(await tool.execute({ code }, { toolCallId: 'x', messages: [] })).toEqual(expected);
  }, 60_000);
});
