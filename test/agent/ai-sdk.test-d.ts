import { ToolLoopAgent, generateText, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expectTypeOf, it } from 'vitest';
import { aiSdkTools, codeTool, type CodeToolInput, type CodeToolOutput } from '../../src/agent/index.js';
import type { Exec } from '../../src/exec/index.js';

declare const exec: Exec;

describe('AI SDK types', () => {
  it('aiSdkTools resolves to a ToolSet that generateText and ToolLoopAgent take without a cast', async () => {
    expectTypeOf(aiSdkTools).returns.resolves.toEqualTypeOf<ToolSet>();
    const tools = await aiSdkTools(exec, { query: 'files', code: { typecheck: true } });
    const model = new MockLanguageModelV4();
    void generateText({ model, tools, prompt: 'hi' });
    void new ToolLoopAgent({ model, tools });
  });

  it('codeTool is a tool of { code } with the snippet output', async () => {
    const tool = await codeTool(exec);
    expectTypeOf(tool.execute).parameter(0).toEqualTypeOf<CodeToolInput>();
    void generateText({ model: new MockLanguageModelV4(), tools: { execute_code: tool }, prompt: 'hi' });
    expectTypeOf<Awaited<ReturnType<NonNullable<typeof tool.execute>>>>().toExtend<CodeToolOutput | AsyncIterable<CodeToolOutput>>();
  });
});
