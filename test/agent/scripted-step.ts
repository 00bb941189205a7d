/**
 * One AI SDK step through a scripted model: the model calls one tool, then answers. What the tool
 * result looked like to the model and to the app.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** Runs a step that calls `name` with `input`: `sent`, the tool result's output in the model's next request; `output`, what the app got. */
export async function scriptedToolStep(tools: ToolSet, name: string, input: unknown = {}): Promise<{ sent: unknown; output: unknown }> {
  const turns: LanguageModelV4GenerateResult[] = [
    {
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: name, input: JSON.stringify(input) }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: USAGE,
      warnings: [],
    },
    { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] },
  ];
  let turn = 0;
  const model = new MockLanguageModelV4({ doGenerate: async () => turns[turn++] as LanguageModelV4GenerateResult });
  const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
  const request = model.doGenerateCalls[1] as LanguageModelV4CallOptions;
  const [part] = request.prompt.flatMap((m) => (m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result') : []));
  return { sent: part?.output, output: result.steps[0]?.toolResults[0]?.output };
}
