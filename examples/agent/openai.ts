/**
 * An agent loop over OpenAI Chat Completions, with a scripted model standing in for the API (no
 * network, no key): the request and response objects are the `openai` SDK's own types, so the same
 * loop runs against `openai.chat.completions.create` unchanged.
 *
 *   node --import tsx examples/agent/openai.ts
 *
 * `agentTools` hands the model the shop's tools in strict mode (names like `shop--quote`), and
 * `call` answers every tool call with a `role: 'tool'` message — a failed call too, with the
 * validation message the model uses to correct itself.
 */
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { createExec } from 'toolexec';
import { agentTools, encodeToolName } from 'toolexec/agent';
import { check, json, runExample, show } from '../shared/report.js';
import { shopTools } from '../shared/shop.js';

const exec = createExec({ tools: shopTools() });

/** One assistant turn: text, or tool calls. */
function reply(calls: { name: string; args: unknown }[], text: string | null = null): ChatCompletion {
  const toolCalls = calls.map((call, i) => ({
    id: `call_${i + 1}`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'scripted',
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        message: { role: 'assistant', content: text, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
      },
    ],
  };
}

/**
 * The scripted model: finds mugs, asks for a quote with a malformed SKU, reads the validation
 * error, asks again correctly (sending `null` for the optional `quantity`, as strict mode makes
 * it), and answers.
 */
function scriptedModel(request: ChatCompletionCreateParamsNonStreaming): ChatCompletion {
  const results = request.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : ''));
  const find = encodeToolName('shop:find_products');
  const quote = encodeToolName('shop:quote');
  if (results.length === 0) return reply([{ name: find, args: { query: 'mug' } }]);
  if (results.length === 1) return reply([{ name: quote, args: { skus: ['mug 1'], quantity: null, previous: null } }]);
  if (results.length === 2) {
    const skus = (JSON.parse(results[0] as string) as { items: { sku: string }[] }).items.map((item) => item.sku);
    return reply([{ name: quote, args: { skus, quantity: 2, previous: null } }]);
  }
  const total = (JSON.parse(results[2] as string) as { totalCents: number }).totalCents;
  return reply([], `Two of each mug cost $${(total / 100).toFixed(2)}.`);
}

await runExample(
  'agent-openai',
  async () => {
    const agent = await agentTools(exec, { format: 'openai-chat', query: 'products quote', limit: 2, strict: true });
    show('tools', agent.tools.map((t) => `${t.function.name}${t.function.strict === true ? ' (strict)' : ''}`).join(', '));
    for (const w of agent.warnings) show('  lost', `${w.toolId} ${w.feature} at ${w.pointer}`);

    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What do two of each mug cost?' }];
    for (let turn = 1; turn <= 6; turn++) {
      const completion = scriptedModel({ model: 'scripted', messages, tools: agent.tools });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (message.tool_calls === undefined || message.tool_calls.length === 0) break;
      for (const call of message.tool_calls) {
        if (call.type !== 'function') continue;
        show(`turn ${turn}`, `${call.function.name}(${call.function.arguments}) → ${agent.toolId(call.function.name)}`);
        const result = await agent.call(call.function.name, call.function.arguments, { callId: call.id });
        show('  result', result.content.length > 110 ? `${result.content.slice(0, 109)}…` : result.content);
        messages.push(result);
      }
    }
    const answer = messages.at(-1);
    show('answer', json(answer?.role === 'assistant' ? answer.content : null));
    check(answer?.role === 'assistant' && answer.content === 'Two of each mug cost $73.00.', 'the scripted model answers with the quote');
  },
  () => exec.close(),
);
