import { readFile } from 'node:fs/promises';
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { ToolLoopAgent, generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTools, aiSdkTools, codeTool, defineTool, encodeToolName } from '../../src/agent/index.js';
import { createExec, type DefaultExec, type ExecOptions } from '../../src/exec/index.js';
import { hasErrorCode, type Tool } from '../../src/model/index.js';
import { inMemoryFixture } from '../mcp/helpers.js';
import { SMALL_TOOLS } from './catalogue.js';
import { ANTHROPIC_PROPERTY_KEY, expectOpenAIPlainSchema, expectPropertyKeys, expectStrictSchema } from './provider-rules.js';

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model turn that calls one tool. */
function callTool(toolName: string, input: unknown, toolCallId = 'call-1'): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
    warnings: [],
  };
}

/** A model turn that answers with text. */
function answer(text: string): LanguageModelV4GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] };
}

/** A scripted model: one turn per call, in order; it records every request. */
function scriptedModel(...turns: LanguageModelV4GenerateResult[]): MockLanguageModelV4 {
  let turn = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const next = turns[turn++];
      if (next === undefined) throw new Error('the script has no more turns');
      return next;
    },
  });
}

/** The tool-result parts the model was sent in its `n`-th request. */
function toolResultsSent(call: LanguageModelV4CallOptions | undefined): unknown[] {
  const prompt: LanguageModelV4Prompt = call?.prompt ?? [];
  return prompt.flatMap((message) => (message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : []));
}

const open: DefaultExec[] = [];
function execWith(options: ExecOptions): DefaultExec {
  const exec = createExec(options);
  open.push(exec);
  return exec;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

describe('aiSdkTools', () => {
  it('hands tools to ToolLoopAgent under provider-safe names; a call runs through toolexec and its result returns to the model', async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = await aiSdkTools(exec);
    const add = encodeToolName('math:add:1.0.0');
    expect(Object.keys(tools).sort()).toEqual([encodeToolName('fs:read_text_file'), add, encodeToolName('util:fail')].sort());
    for (const name of Object.keys(tools)) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const model = scriptedModel(callTool(add, { a: 2, b: 3 }), answer('2 + 3 = 5'));
    const agent = new ToolLoopAgent({ model, tools, stopWhen: stepCountIs(5) });
    const result = await agent.generate({ prompt: 'What is 2 + 3?' });
    expect(result.text).toBe('2 + 3 = 5');
    expect(result.steps[0]?.toolResults[0]).toMatchObject({
      toolName: add,
      input: { a: 2, b: 3 },
      output: { value: 5, toolId: 'math:add:1.0.0' },
    });
    // the tool's definition the model received, and the result it read
    const sent = model.doGenerateCalls[0]?.tools?.find((t) => t.name === add);
    expect(sent).toMatchObject({ type: 'function', description: 'Adds two numbers.', inputSchema: { required: ['a', 'b'] } });
    expect(toolResultsSent(model.doGenerateCalls[1])).toEqual([
      expect.objectContaining({ toolCallId: 'call-1', toolName: add, output: { type: 'json', value: 5 } }),
    ]);
  });

  it('a call toolexec refuses returns its validation message to the model, which corrects it', async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = await aiSdkTools(exec, { ids: ['fs:read_text_file'] });
    const read = encodeToolName('fs:read_text_file');
    const model = scriptedModel(callTool(read, { pth: 'a.txt' }), callTool(read, { path: 'a.txt' }, 'call-2'), answer('done'));
    const result = await generateText({ model, tools, prompt: 'Read a.txt', stopWhen: stepCountIs(5) });
    expect(result.text).toBe('done');
    const [refused] = toolResultsSent(model.doGenerateCalls[1]) as { output: { type: string; value: string } }[];
    expect(refused?.output.type).toBe('error-text');
    expect(refused?.output.value).toContain('validation error');
    expect(refused?.output.value).toContain("Field '/path' is required");
    expect(refused?.output.value).toContain('pth');
    expect(result.steps[0]?.content.find((part) => part.type === 'tool-error')).toMatchObject({
      error: expect.objectContaining({ code: 'VALIDATION' }),
    });
    expect(result.steps[1]?.toolResults[0]?.output).toMatchObject({ value: { path: 'a.txt', text: 'line 1\nline 2' } });
  });

  it("a tool's failure goes back to the model as its error, without stopping the loop", async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = await aiSdkTools(exec, { ids: ['util:fail'] });
    const model = scriptedModel(callTool(encodeToolName('util:fail'), {}), answer('it failed'));
    const result = await generateText({ model, tools, prompt: 'Try it', stopWhen: stepCountIs(3) });
    expect(result.text).toBe('it failed');
    const [failed] = toolResultsSent(model.doGenerateCalls[1]) as { output: { type: string; value: string } }[];
    expect(failed?.output).toMatchObject({ type: 'error-text' });
    expect(failed?.output.value).toContain('the disk is on fire');
  });

  it("passes execute's abortSignal to the run: aborting the generation stops the tool", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const seen: { reason?: unknown } = {};
    const wait = defineTool({
      name: 'wait',
      inputSchema: z.object({}),
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          started();
          ctx.signal.addEventListener('abort', () => {
            seen.reason = ctx.signal.reason;
            reject(new Error('stopped'));
          });
        }),
    });
    const exec = execWith({ tools: [wait] });
    const tools = await aiSdkTools(exec);
    const controller = new AbortController();
    const model = scriptedModel(callTool('wait', {}), answer('never'));
    const generation = generateText({ model, tools, prompt: 'wait', abortSignal: controller.signal, stopWhen: stepCountIs(3) });
    await running;
    controller.abort(new Error('the user left'));
    await expect(generation).rejects.toThrow();
    expect(seen.reason).toBeDefined();
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it("gives the model an MCP tool's images and audio as files (toModelOutput)", async () => {
    const fixture = inMemoryFixture();
    const exec = execWith({ mcpServers: { fx: fixture.config } });
    await exec.connect();
    const tools = await aiSdkTools(exec, { ids: ['fx:media'] });
    const media = encodeToolName('fx:media');
    const model = scriptedModel(callTool(media, {}), answer('seen'));
    await generateText({ model, tools, prompt: 'media', stopWhen: stepCountIs(3) });
    const [sent] = toolResultsSent(model.doGenerateCalls[1]) as { output: { type: string; value: unknown[] } }[];
    expect(sent?.output.type).toBe('content');
    expect(sent?.output.value).toEqual([
      { type: 'text', text: 'a red pixel and friends' },
      { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
      { type: 'file', mediaType: 'audio/wav', data: { type: 'data', data: 'UklGRg==' } },
      { type: 'text', text: 'embedded notes' },
      // a resource link as agentTools writes it (one mechanism: result-parts.ts)
      { type: 'text', text: '[resource https://example.com/report.pdf (application/pdf): report]' },
    ]);
  });

  it('meta: true hands over the six meta-tools; the model searches, then runs a tool', async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = await aiSdkTools(exec, { meta: true });
    expect(Object.keys(tools)).toEqual(['search_tools', 'list_namespaces', 'describe_tool', 'run_tool', 'run_chain', 'execute_code']);
    const model = scriptedModel(
      callTool('search_tools', { query: 'add numbers', limit: 1 }),
      callTool('run_tool', { id: 'math:add:1.0.0', args: { a: 40, b: 2 } }, 'call-2'),
      answer('42'),
    );
    const result = await generateText({ model, tools, prompt: 'add 40 and 2', stopWhen: stepCountIs(5) });
    expect(result.text).toBe('42');
    expect(JSON.stringify(result.steps[0]?.toolResults[0]?.output)).toContain('math:add:1.0.0');
    expect(result.steps[1]?.toolResults[0]?.output).toMatchObject({ value: 42 });
  });

  it('meta: true with code: true keeps six tools, execute_code declaring no tool (snippets search the catalogue)', async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = await aiSdkTools(exec, { meta: true, code: true });
    expect(Object.keys(tools)).toEqual(['search_tools', 'list_namespaces', 'describe_tool', 'run_tool', 'run_chain', 'execute_code']);
    const description = tools.execute_code?.description as string;
    expect(description).toContain('with 0 tools typed');
    expect(description).toContain('searchTools(query: string, limit?: number): Promise<ToolSummary[]>;');
  });

  it('with provider, each schema is the one toProviderTool makes, and a call gets its renamed keys back', async () => {
    const search: Tool = {
      namespace: 'api',
      name: 'search',
      description: 'Searches the catalogue.',
      inputSchema: {
        type: 'object',
        properties: { 'filter[brand]': { type: 'string' }, $top: { type: 'integer' }, tags: { type: 'array' } },
        required: ['filter[brand]'],
      },
    };
    const seen: unknown[] = [];
    const exec = execWith({ tools: [{ tool: search, handler: (args) => (seen.push(args), 'found') }] });
    const warnings: string[] = [];
    const name = encodeToolName('api:search');
    const tools = await aiSdkTools(exec, { provider: 'anthropic', onWarning: (w) => warnings.push(`${w.toolId} ${w.feature}`) });
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.every((w) => w.startsWith('api:search '))).toBe(true);
    const model = scriptedModel(callTool(name, { filter_brand_: 'acme', _top: 3 }), answer('done'));
    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'find acme' });
    const sent = model.doGenerateCalls[0]?.tools?.find((t) => t.name === name) as { inputSchema: unknown } | undefined;
    expectPropertyKeys(sent?.inputSchema, ANTHROPIC_PROPERTY_KEY);
    expect(seen).toEqual([{ 'filter[brand]': 'acme', $top: 3 }]);
  });

  it('with provider and strict, OpenAI gets the strict form (the tool marked strict) and strict nulls are dropped', async () => {
    const find: Tool = {
      namespace: 'api',
      name: 'find',
      inputSchema: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' } }, required: ['q'] },
    };
    const seen: unknown[] = [];
    const exec = execWith({ tools: [{ tool: find, handler: (args) => (seen.push(args), 'ok') }] });
    const name = encodeToolName('api:find');
    const plain = await aiSdkTools(exec, { provider: 'openai-responses' });
    const strict = await aiSdkTools(exec, { provider: 'openai-responses', strict: true });
    const model = scriptedModel(callTool(name, { q: 'x', limit: null }), answer('done'));
    await generateText({ model, tools: strict, stopWhen: stepCountIs(3), prompt: 'find x' });
    const sent = model.doGenerateCalls[0]?.tools?.find((t) => t.name === name) as { inputSchema: unknown; strict?: boolean } | undefined;
    expect(sent?.strict).toBe(true);
    expectStrictSchema(sent?.inputSchema, 'openai');
    expect(seen).toEqual([{ q: 'x' }]);
    const plainModel = scriptedModel(answer('nothing'));
    await generateText({ model: plainModel, tools: plain, prompt: 'hi' });
    const plainSent = plainModel.doGenerateCalls[0]?.tools?.find((t) => t.name === name) as
      { inputSchema: unknown; strict?: boolean } | undefined;
    expect(plainSent?.strict).toBeUndefined();
    expectOpenAIPlainSchema(plainSent?.inputSchema);
  });

  it('refuses bad options with CONFIGURATION', async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    expect(hasErrorCode(await aiSdkTools(exec, { code: 'yes' as never }).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
    expect(hasErrorCode(await aiSdkTools(exec, { ids: [42 as never] }).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
    expect(hasErrorCode(await aiSdkTools(exec, { code: { timeoutMs: 0 } }).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
    expect(hasErrorCode(await codeTool(exec, { timeoutMs: -1 }).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
    for (const bad of [{ provider: 'claude' }, { provider: 'anthropic', strict: 'yes' }, { provider: 'gemini', onWarning: 1 }, 'tools']) {
      expect(hasErrorCode(await aiSdkTools(exec, bad as never).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
    }
  });
});

describe('the execute_code tool', () => {
  const SNIPPET = `const { structured } = await tools.runTool('math:add:1.0.0', { a: 20, b: 22 });
console.log('sum', structured);
return { answer: structured };`;

  it("carries the typed code-mode API in its description and runs the model's snippet in the sandbox", async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = await aiSdkTools(exec, { ids: ['math:add:1.0.0'], code: true });
    expect(Object.keys(tools)).toEqual([encodeToolName('math:add:1.0.0'), 'execute_code']);
    const description = tools.execute_code?.description as string;
    expect(description).toContain('body of an async function');
    expect(description).toContain('"math:add:1.0.0": MathAdd_1_0_0.Args;');
    expect(description).not.toContain('fs:read_text_file');
    const model = scriptedModel(callTool('execute_code', { code: SNIPPET }), answer('42'));
    const agent = new ToolLoopAgent({ model, tools, stopWhen: stepCountIs(3) });
    const result = await agent.generate({ prompt: 'add 20 and 22 in code' });
    expect(result.steps[0]?.toolResults[0]?.output).toEqual({
      value: { answer: 42 },
      toolCalls: [{ id: 'math:add:1.0.0', count: 1 }],
      stdout: 'sum 42\n',
    });
    expect(toolResultsSent(model.doGenerateCalls[1])).toEqual([
      expect.objectContaining({
        output: { type: 'json', value: { value: { answer: 42 }, toolCalls: [{ id: 'math:add:1.0.0', count: 1 }], stdout: 'sum 42\n' } },
      }),
    ]);
  });

  it('with typecheck, a snippet that does not compile is not run and the compiler messages go to the model', async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = { execute_code: await codeTool(exec, { ids: ['math:add:1.0.0'], typecheck: true }) };
    const wrong = `const r = await tools.runTool('math:add:1.0.0', { a: 1, b: 'two' });\nreturn r.structured;`;
    const model = scriptedModel(
      callTool('execute_code', { code: wrong }),
      callTool('execute_code', { code: SNIPPET }, 'call-2'),
      answer('ok'),
    );
    const result = await generateText({ model, tools, prompt: 'add', stopWhen: stepCountIs(4) });
    const [refused] = toolResultsSent(model.doGenerateCalls[1]) as { output: { type: string; value: string } }[];
    expect(refused?.output.type).toBe('error-text');
    expect(refused?.output.value).toMatch(/does not type-check[\s\S]*line 1:\d+ TS2322 Type 'string' is not assignable to type 'number'/);
    expect(result.steps[1]?.toolResults[0]?.output).toMatchObject({ value: { answer: 42 } });
  });

  it("a snippet that fails reports the sandbox's error to the model", async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = await aiSdkTools(exec, { ids: [], code: true });
    const model = scriptedModel(callTool('execute_code', { code: 'const x = undefined;\nreturn x.y;' }), answer('oops'));
    await generateText({ model, tools, prompt: 'x', stopWhen: stepCountIs(3) });
    const [failed] = toolResultsSent(model.doGenerateCalls[1]) as { output: { type: string; value: string } }[];
    expect(failed?.output.type).toBe('error-text');
    expect(failed?.output.value).toMatch(/TypeError|undefined/);
  });

  it('a snippet that fails on a tool call tells the model the line, the calls that already succeeded and what it printed', async () => {
    const exec = execWith({ tools: SMALL_TOOLS });
    const tools = await aiSdkTools(exec, { ids: [], code: true });
    const code = [
      "const a = await tools.runTool('math:add:1.0.0', { a: 1, b: 2 });",
      "console.log('step 1 done', a.structured); await tools.runTool('math:add:1.0.0', { a: 2, b: 2 });",
      "await tools.runTool('math:add:1.0.0', { a: 'three', b: 4 });",
    ].join('\n');
    const model = scriptedModel(callTool('execute_code', { code }), answer('oops'));
    await generateText({ model, tools, prompt: 'x', stopWhen: stepCountIs(3) });
    const [failed] = toolResultsSent(model.doGenerateCalls[1]) as { output: { type: string; value: string } }[];
    expect(failed?.output.type).toBe('error-text');
    const text = failed?.output.value ?? '';
    expect(text).toContain("Field '/a' must be number");
    expect(text).toContain('line 3');
    expect(text).toContain('Tool calls that had already succeeded (their effects happened): math:add:1.0.0 ×2');
    expect(text).toContain('What it printed before failing:\nstep 1 done 3');
  });

  it('a failed call reads to the model exactly as agentTools words it, and as docs/agents.md shows it', async () => {
    const forecast = defineTool({
      name: 'forecast',
      namespace: 'weather',
      description: 'Daily highs for a city.',
      inputSchema: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7).default(1) }),
      handler: ({ city, days }) => ({ city, days }),
    });
    const exec = execWith({ tools: [forecast] });
    const tools = await aiSdkTools(exec);
    const model = scriptedModel(callTool('weather--forecast', { days: 2 }), answer('sorry'));
    const result = await generateText({ model, tools, prompt: 'x', stopWhen: stepCountIs(3) });
    const [failed] = toolResultsSent(model.doGenerateCalls[1]) as { output: { type: string; value: string } }[];
    expect(failed?.output.type).toBe('error-text');
    const text = failed?.output.value;
    expect(text).toBe(
      "Error (VALIDATION): run: validate_input weather:forecast [local]: validation error: Field '/city' is required. Fix the arguments and call the tool again.",
    );
    const agent = await agentTools(exec, { format: 'openai-chat' });
    expect((await agent.call('weather--forecast', '{"days":2}')).content).toBe(text);
    // the app still gets the runner's own error in the step's tool-error part
    const error = result.steps[0]?.content.find((part) => part.type === 'tool-error')?.error;
    expect(hasErrorCode(error, 'VALIDATION')).toBe(true);
    expect((error as Error).message).toBe("run: validate_input weather:forecast [local]: validation error: Field '/city' is required");
    const doc = await readFile(new URL('../../docs/agents.md', import.meta.url), 'utf8');
    expect(doc.replace(/\s*\n\s*/gu, ' ').includes(`\`${text}\``), 'docs/agents.md shows the text the model gets').toBe(true);
  });
});
