/**
 * Agent loops with a scripted "model" per provider, typed with the providers' own SDK request and
 * response types (no network): the model asks for tools, `agentTools` runs them, the results go
 * back into the conversation as the SDK types say they must.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Content, FunctionCall, Part, Tool as GeminiTool } from '@google/genai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming, ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DefaultExec } from '../../src/exec/index.js';
import { agentTools, encodeToolName } from '../../src/agent/index.js';
import { execWith, SMALL_TOOLS } from './catalogue.js';

const ADD = encodeToolName('math:add:1.0.0');
const READ = encodeToolName('fs:read_text_file');

let exec: DefaultExec;
beforeAll(() => {
  exec = execWith(SMALL_TOOLS);
});
afterAll(() => exec.close());

/** A chat completion whose message calls the given tools (or answers with text). */
function completion(calls: { id: string; name: string; arguments: string }[], text: string | null = null): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'scripted',
    choices: [
      {
        index: 0,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
        message: {
          role: 'assistant',
          content: text,
          refusal: null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
      },
    ],
  };
}

describe('agent loops with scripted models', () => {
  it('OpenAI Chat Completions (strict): tool calls with JSON-string arguments, nulls for absent optionals', async () => {
    const agent = await agentTools(exec, { format: 'openai-chat', ids: ['math:add:1.0.0', 'fs:read_text_file'], strict: true });
    const seen: ChatCompletionCreateParamsNonStreaming[] = [];
    const model = (request: ChatCompletionCreateParamsNonStreaming): ChatCompletion => {
      seen.push(request);
      const last = request.messages.at(-1);
      if (last?.role === 'user') {
        return completion([
          { id: 'call_1', name: ADD, arguments: '{"a":2,"b":3}' },
          { id: 'call_2', name: READ, arguments: '{"path":"notes.txt","head":null}' },
        ]);
      }
      const results = request.messages.flatMap((message) =>
        message.role === 'tool' && typeof message.content === 'string' ? [message.content] : [],
      );
      return completion([], `done: ${results.join(' | ')}`);
    };
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'add 2 and 3, then read notes.txt' }];
    for (let turn = 0; turn < 4; turn++) {
      const reply = model({ model: 'scripted', messages, tools: agent.tools });
      const message = reply.choices[0]!.message;
      messages.push(message);
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) break;
      for (const call of calls) {
        if (call.type !== 'function') continue;
        messages.push(await agent.call(call.function.name, call.function.arguments, { callId: call.id }));
      }
    }
    expect(seen[0]!.tools).toHaveLength(2);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'done: 5 | {"path":"notes.txt","text":"line 1\\nline 2"}' });
    expect(messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual(['call_1', 'call_2']);
  });

  it('OpenAI Responses: function_call items in, function_call_output items back', async () => {
    const agent = await agentTools(exec, { format: 'openai-responses', query: 'add numbers', limit: 1 });
    const input: ResponseInputItem[] = [{ role: 'user', content: 'add 40 and 2' }];
    const request: ResponseCreateParamsNonStreaming = { model: 'scripted', input, tools: agent.tools };
    const output: ResponseFunctionToolCall[] = [{ type: 'function_call', call_id: 'fc_1', name: ADD, arguments: '{"a":40,"b":2}' }];
    expect(request.tools).toEqual([expect.objectContaining({ type: 'function', name: ADD })]);
    for (const call of output) {
      input.push(call);
      input.push(await agent.call(call.name, call.arguments, { callId: call.call_id }));
    }
    expect(input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'fc_1', output: '42' });
  });

  it('Anthropic: tool_use blocks in, tool_result blocks back (errors marked is_error)', async () => {
    const agent = await agentTools(exec, { format: 'anthropic', strict: true });
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'scripted',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'read a file and fail once' }],
      tools: agent.tools,
    };
    const content: Anthropic.ContentBlock[] = [
      { type: 'text', text: 'Let me look.', citations: null },
      { type: 'tool_use', id: 'toolu_1', name: READ, input: { path: 'a.txt', head: 1 }, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'toolu_2', name: encodeToolName('util:fail'), input: {}, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'toolu_3', name: READ, input: { path: '' }, caller: { type: 'direct' } },
    ];
    request.messages.push({ role: 'assistant', content });
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of content) {
      if (block.type === 'tool_use') results.push(await agent.call(block.name, block.input, { callId: block.id }));
    }
    request.messages.push({ role: 'user', content: results });
    expect(results[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [{ type: 'text', text: '{"path":"a.txt","text":"line 1"}' }],
    });
    expect(results[1]).toMatchObject({
      tool_use_id: 'toolu_2',
      is_error: true,
      content: [{ type: 'text', text: expect.stringMatching(/^Error \(EXECUTION\): .*the disk is on fire/u) as unknown }],
    });
    expect(results[2]).toMatchObject({ tool_use_id: 'toolu_3', is_error: true });
    expect((results[2]!.content as { text: string }[])[0]!.text).toMatch(
      /^Error \(VALIDATION\): .*\/path.*Fix the arguments and call the tool again\.$/u,
    );
  });

  it('Gemini: functionCall parts in, functionResponse parts back', async () => {
    const agent = await agentTools(exec, { format: 'gemini', ids: ['math:add:1.0.0'] });
    const tools: GeminiTool[] = [{ functionDeclarations: agent.tools }];
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'add 1 and 1' }] }];
    const calls: FunctionCall[] = [
      { id: 'g1', name: ADD, args: { a: 1, b: 1 } },
      { name: ADD, args: { a: 'one' } },
    ];
    contents.push({ role: 'model', parts: calls.map((functionCall): Part => ({ functionCall })) });
    const parts: Part[] = [];
    for (const call of calls)
      parts.push(await agent.call(call.name ?? '', call.args, call.id === undefined ? undefined : { callId: call.id }));
    contents.push({ role: 'user', parts });
    expect(tools[0]!.functionDeclarations![0]!.name).toBe(ADD);
    expect(parts[0]).toEqual({ functionResponse: { id: 'g1', name: ADD, response: { output: 2 } } });
    expect(parts[1]!.functionResponse!.response!.error).toMatch(/^Error \(VALIDATION\): /u);
  });
});
