import { ToolLoopAgent, generateText, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expectTypeOf, it } from 'vitest';
import { aiSdkTools, codeTool, type AiSdkToolSet } from '../../src/agent/index.js';
import type { Exec } from '../../src/exec/index.js';

declare const exec: Exec;

describe('AI SDK types', () => {
  it('aiSdkTools resolves to a ToolSet that generateText and ToolLoopAgent take without a cast', async () => {
    // declared without naming `ai` (an optional peer), and still a ToolSet wherever one is taken
    expectTypeOf(aiSdkTools).returns.resolves.toEqualTypeOf<AiSdkToolSet>();
    expectTypeOf<AiSdkToolSet>().toExtend<ToolSet>();
    const tools = await aiSdkTools(exec, { query: 'files', code: { typecheck: true } });
    const model = new MockLanguageModelV4();
    void generateText({ model, tools, prompt: 'hi' });
    void new ToolLoopAgent({ model, tools });
  });

  it('codeTool is a tool generateText takes without a cast', async () => {
    const tool = await codeTool(exec);
    void generateText({ model: new MockLanguageModelV4(), tools: { execute_code: tool }, prompt: 'hi' });
  });
});
