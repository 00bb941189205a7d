/**
 * An agent loop with the Vercel AI SDK: tools defined with zod, handed to a `ToolLoopAgent` as an
 * AI SDK `ToolSet` (`aiSdkTools`), plus `execute_code`, whose description carries the typed
 * code-mode API. The model is scripted (`MockLanguageModelV4`, no network): it makes a wrong call,
 * reads toolexec's validation message, corrects itself, then hands the rest to a snippet.
 *
 *   node --import tsx examples/agent/ai-sdk.ts
 */
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { ToolLoopAgent, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { aiSdkTools, defineTool, encodeToolName, type CodeToolOutput } from 'toolexec/agent';
import { createExec } from 'toolexec';
import { check, json, runExample, show } from '../shared/report.js';

// 1. Tools written with zod: the handler's arguments are typed from the schema (days is a number, 1 by default).
const forecast = defineTool({
  name: 'forecast',
  namespace: 'weather',
  description: 'Daily high temperatures for a city, in °C.',
  inputSchema: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7).default(1) }),
  outputSchema: z.object({ city: z.string(), highsC: z.array(z.number()) }),
  handler: ({ city, days }) => ({ city, highsC: Array.from({ length: days }, (_, day) => 18 + day * 2) }),
});
const toFahrenheit = defineTool({
  name: 'c_to_f',
  namespace: 'units',
  description: 'Converts °C to °F.',
  inputSchema: z.object({ celsius: z.number() }),
  outputSchema: z.object({ fahrenheit: z.number() }),
  handler: ({ celsius }) => ({ fahrenheit: Math.round((celsius * 9) / 5 + 32) }),
});
const exec = createExec({ tools: [forecast, toFahrenheit] });

const USAGE = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

/** What the model read last: the tool results in its request. */
function lastToolResults(options: LanguageModelV4CallOptions): { toolName: string; output: { type: string; value: unknown } }[] {
  const last = options.prompt.at(-1);
  return last?.role === 'tool' ? (last.content.filter((part) => part.type === 'tool-result') as never) : [];
}

function toolCall(toolName: string, input: unknown): LanguageModelV4GenerateResult {
  return {
    content: [
      {
        type: 'tool-call',
        toolCallId: `call-${toolName}-${Math.random().toString(36).slice(2, 8)}`,
        toolName,
        input: JSON.stringify(input),
      },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
    warnings: [],
  };
}

const SNIPPET = `const { structured } = await tools.runTool('weather:forecast', { city: 'Oslo', days: 3 });
const converted = await Promise.all(structured.highsC.map((celsius) => tools.runTool('units:c_to_f', { celsius })));
return converted.map((r) => r.structured.fahrenheit);`;

/** The scripted model: each turn reads what the previous one got back. */
const FORECAST = encodeToolName('weather:forecast');
const turns: ((options: LanguageModelV4CallOptions) => LanguageModelV4GenerateResult)[] = [
  () => toolCall(FORECAST, { town: 'Oslo' }), // a misspelled argument
  (options) => {
    const [refused] = lastToolResults(options);
    show('model read', `${refused?.output.type}: ${String(refused?.output.value).slice(0, 110)}`);
    check(refused?.output.type === 'error-text' && String(refused.output.value).includes("'/city' is required"), 'the validation message');
    return toolCall(FORECAST, { city: 'Oslo' }); // corrected; days defaults to 1
  },
  (options) => {
    const [result] = lastToolResults(options);
    show('model read', `${result?.output.type}: ${json(result?.output.value)}`);
    return toolCall('execute_code', { code: SNIPPET }); // the rest in one snippet
  },
  (options) => {
    const [result] = lastToolResults(options);
    show('model read', `${result?.output.type}: ${json(result?.output.value)}`);
    return {
      content: [{ type: 'text', text: 'Oslo: 64 °F, 68 °F and 72 °F.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: USAGE,
      warnings: [],
    };
  },
];
let turn = 0;
const model = new MockLanguageModelV4({
  doGenerate: async (options) => {
    const next = turns[turn++];
    if (next === undefined) throw new Error('the script has no more turns');
    return next(options);
  },
});

await runExample(
  'agent-ai-sdk',
  async () => {
    // 2. One call: every tool as an AI SDK tool (provider-safe names), plus execute_code.
    const tools = await aiSdkTools(exec, { code: true });
    show('tools', Object.keys(tools).join(', '));
    const description = String(tools.execute_code?.description ?? '');
    show(
      'code api',
      description
        .split('\n')
        .find((line) => line.includes('"weather:forecast"'))
        ?.trim() ?? '(missing)',
    );

    // 3. The AI SDK's own agent loop drives toolexec: validation, deadlines and the sandbox are toolexec's.
    const agent = new ToolLoopAgent({ model, tools, stopWhen: stepCountIs(6) });
    const result = await agent.generate({ prompt: 'How warm will Oslo be in °F over the next three days?' });
    for (const [i, step] of result.steps.entries()) {
      for (const call of step.toolCalls) show(`step ${i + 1}`, `${call.toolName} ${json(call.input).slice(0, 90)}`);
      for (const error of step.content.filter((part) => part.type === 'tool-error'))
        show('', `→ error ${(error.error as { code?: string }).code}`);
    }
    show('answer', result.text);
    const code = result.steps[2]?.toolResults[0]?.output as CodeToolOutput | undefined;
    check(json(code?.value) === json([64, 68, 72]), 'three highs in °F');
    check(
      json(code?.toolCalls) ===
        json([
          { id: 'weather:forecast', count: 1 },
          { id: 'units:c_to_f', count: 3 },
        ]),
      'one forecast and three conversions inside the snippet',
    );
    check(result.text.includes('72 °F'), 'the answer');
  },
  () => exec.close(),
);
