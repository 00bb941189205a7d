import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';
import { createRunner } from '../../src/run/index.js';
import { indexWith, localBackend, tool } from './helpers.js';
import { installTracing, spanNamed } from './otel-helpers.js';

let tracing: ReturnType<typeof installTracing>;
beforeAll(() => {
  tracing = installTracing();
});
afterAll(async () => {
  await tracing.uninstall();
});

describe('retries under tracing', () => {
  it('every failed attempt is an event on the call span, with its code and no message', async () => {
    tracing.exporter.reset();
    let calls = 0;
    const runner = createRunner({
      index: indexWith([tool('t', { annotations: { readOnlyHint: true } }), localBackend('h')]),
      local: {
        h: () => {
          calls++;
          if (calls < 3) throw new ToolexecError('TIMEOUT', 'request timed out for secret-value');
          return { calls };
        },
      },
      retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 2 },
    });
    const result = await runner.run('t', {});
    expect(result.structured).toEqual({ calls: 3 });
    const span = spanNamed(await tracing.finished(), 'execute_tool t');
    const attempts = span.events.filter((event) => event.name === 'toolexec.retry.attempt');
    expect(attempts.map((event) => event.attributes?.['toolexec.attempt'])).toEqual([1, 2]);
    expect(attempts.every((event) => event.attributes?.['error.type'] === 'TIMEOUT')).toBe(true);
    expect(attempts.map((event) => event.attributes?.['toolexec.attempt.will_retry'])).toEqual([true, true]);
    expect(JSON.stringify(span.events)).not.toContain('secret-value');
  });
});
