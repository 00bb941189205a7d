/**
 * An agent loop over Anthropic Messages with the six meta-tools, with a scripted model standing in
 * for the API (no network, no key): the request and response objects are the `@anthropic-ai/sdk`
 * types, so the same loop runs against `anthropic.messages.create` unchanged.
 *
 *   node --import tsx examples/agent/anthropic.ts
 *
 * With `meta: true` the model gets six tools whatever the size of the catalogue (`search_tools`,
 * `list_namespaces`, `describe_tool`, `run_tool`, `run_chain`, `execute_code`) and works its way to
 * the tool it needs. Every `call` resolves to a `tool_result` block (`is_error: true` on failure).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { createExec } from 'toolexec';
import { agentTools } from 'toolexec/agent';
import { check, runExample, show } from '../shared/report.js';
import { shopTools } from '../shared/shop.js';

const exec = createExec({ tools: shopTools() });

/** One assistant message with these tool calls (or this text). */
function reply(calls: { name: string; input: Record<string, unknown> }[], text?: string): Anthropic.Message {
  const content: Anthropic.ContentBlock[] = calls.map((call, i) => ({
    type: 'tool_use',
    id: `toolu_${i + 1}`,
    name: call.name,
    input: call.input,
    caller: { type: 'direct' },
  }));
  if (text !== undefined) content.push({ type: 'text', text, citations: null });
  return {
    id: 'msg_scripted',
    type: 'message',
    role: 'assistant',
    model: 'scripted',
    content,
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_creation: null,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      inference_geo: null,
      server_tool_use: null,
      service_tier: null,
      output_tokens_details: null,
      speed: null,
    },
  };
}

/** The text of every tool result the conversation holds so far, in order. */
function toolResults(request: Anthropic.MessageCreateParamsNonStreaming): string[] {
  return request.messages.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content.flatMap((block) =>
          block.type === 'tool_result' && Array.isArray(block.content) ? block.content.map((c) => (c.type === 'text' ? c.text : '')) : [],
        ),
  );
}

/** The scripted model: search, describe, run, answer. */
function scriptedModel(request: Anthropic.MessageCreateParamsNonStreaming): Anthropic.Message {
  const results = toolResults(request);
  if (results.length === 0) return reply([{ name: 'search_tools', input: { query: 'price basket quote', limit: 3 } }]);
  if (results.length === 1) {
    const id = (JSON.parse(results[0] as string) as { tools: { id: string }[] }).tools[0]!.id;
    return reply([{ name: 'describe_tool', input: { id } }]);
  }
  if (results.length === 2) {
    const { id } = JSON.parse(results[1] as string) as { id: string };
    return reply([{ name: 'run_tool', input: { id, args: JSON.stringify({ skus: ['TEE-1'], quantity: 3 }) } }]);
  }
  const { totalCents } = JSON.parse(results[2] as string) as { totalCents: number };
  return reply([], `Three logo t-shirts cost $${(totalCents / 100).toFixed(2)}.`);
}

await runExample(
  'agent-anthropic',
  async () => {
    const agent = await agentTools(exec, { format: 'anthropic', meta: true, strict: true });
    show('tools', agent.tools.map((t) => ('name' in t ? t.name : '')).join(', '));

    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'scripted',
      max_tokens: 1024,
      tools: agent.tools,
      messages: [{ role: 'user', content: 'What do three logo t-shirts cost?' }],
    };
    let answer = '';
    for (let turn = 1; turn <= 6; turn++) {
      const message = scriptedModel(request);
      request.messages.push({ role: 'assistant', content: message.content });
      if (message.stop_reason !== 'tool_use') {
        answer = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
        break;
      }
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const block of message.content) {
        if (block.type !== 'tool_use') continue;
        show(`turn ${turn}`, `${block.name} ${JSON.stringify(block.input)}`);
        const result = await agent.call(block.name, block.input, { callId: block.id });
        const text = result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('');
        show('  result', text.length > 110 ? `${text.slice(0, 109)}…` : text);
        results.push(result);
      }
      request.messages.push({ role: 'user', content: results });
    }
    show('answer', answer);
    check(answer === 'Three logo t-shirts cost $54.00.', 'the scripted model answers with the quote');
  },
  () => exec.close(),
);
