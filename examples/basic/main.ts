/**
 * Basic: define local tools, run them through `createExec`, and handle failures by code.
 *
 *   node --import tsx examples/basic/main.ts
 *
 * Every failure is a `ToolexecError` with a stable `code`; `hasErrorCode` finds a code anywhere on
 * the `cause` chain, and `toErrorShape` gives the envelope a model receives.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createExec, defineTool, hasErrorCode, toErrorShape, ToolError, type ToolexecError } from 'toolexec';
import { check, failure, json, runExample, show } from '../shared/report.js';

const exec = createExec({
  tools: [
    {
      tool: defineTool({
        namespace: 'demo',
        name: 'greet',
        description: 'Greet someone by name.',
        inputSchema: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 }, language: { enum: ['en', 'fr', 'de'], default: 'en' } },
          required: ['name'],
          additionalProperties: false,
        },
        outputSchema: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
      }),
      handler: ({ name, language = 'en' }) => {
        const hello = { en: 'Hello', fr: 'Bonjour', de: 'Hallo' }[language as 'en' | 'fr' | 'de'];
        return { greeting: `${hello}, ${String(name)}!` };
      },
    },
    {
      tool: defineTool({
        namespace: 'demo',
        name: 'divide',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      }),
      handler: ({ a, b }) => {
        if (b === 0) throw new RangeError('division by zero');
        return (a as number) / (b as number);
      },
    },
    {
      // Declares an output schema its handler does not keep: the runner catches that.
      tool: defineTool({
        namespace: 'demo',
        name: 'broken',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      }),
      handler: () => ({ count: 'three' }),
    },
    {
      tool: defineTool({ namespace: 'demo', name: 'slow', inputSchema: { type: 'object' } }),
      handler: async (_args, { signal }) => {
        await sleep(10_000, undefined, { signal }); // stops as soon as the call times out or is aborted
        return 'done';
      },
    },
  ],
});

function explain(err: unknown): ToolexecError {
  check(err instanceof ToolError, 'a ToolError');
  console.log(`${err.code.padEnd(18)} op=${err.op.padEnd(16)} ${err.message}`);
  return err;
}

await runExample(
  'basic',
  async () => {
    const hello = await exec.runTool('demo:greet', { name: 'Ada', language: 'fr' });
    show('run', `demo:greet → ${json(hello.value)} in ${hello.durationMs.toFixed(1)} ms`);
    check(json(hello.value) === json({ greeting: 'Bonjour, Ada!' }), 'the French greeting');

    const quotient = await exec.runTool('demo:divide', { a: 1, b: 4 });
    show('run', `demo:divide → ${json(quotient.value)}`);
    check(quotient.value === 0.25, '1 / 4 = 0.25');

    console.log('\nfailures, by code:');
    // Input validation: the handler never runs; the message names the field and what was expected.
    const invalid = explain(await failure(exec.runTool('demo:greet', { name: '', language: 'es', extra: 1 }), 'invalid greet'));
    check(hasErrorCode(invalid, 'VALIDATION'), 'VALIDATION');
    const shape = toErrorShape(invalid); // what a model receives: { status: 'Error', error: { code, message, details } }
    const violations = shape.error.details?.violations as { code: string; field: string; message: string }[];
    for (const v of violations) console.log(`${''.padEnd(18)} ${v.code.padEnd(19)} ${v.field.padEnd(9)} ${v.message}`);
    check(
      json(violations.map((v) => `${v.code} ${v.field}`).sort()) ===
        json(['ConstraintViolation /extra', 'ConstraintViolation /name', 'InvalidEnumValue /language']),
      'three violations',
    );

    const missing = explain(await failure(exec.runTool('demo:greet', {}), 'greet without a name'));
    check(
      hasErrorCode(missing, 'VALIDATION') && (missing.details?.violations as { code: string }[])[0]?.code === 'RequiredMissing',
      'RequiredMissing',
    );

    const unknown = explain(await failure(exec.runTool('demo:greeting', { name: 'Ada' }), 'an unknown tool'));
    check(hasErrorCode(unknown, 'TOOL_NOT_FOUND'), 'TOOL_NOT_FOUND');

    const badId = explain(await failure(exec.runTool(''), 'an empty tool ID'));
    check(hasErrorCode(badId, 'INVALID_TOOL_ID'), 'INVALID_TOOL_ID');

    // A handler's own error is kept as `cause`, never flattened to a string.
    const thrown = explain(await failure(exec.runTool('demo:divide', { a: 1, b: 0 }), 'division by zero'));
    check(hasErrorCode(thrown, 'EXECUTION') && thrown.cause instanceof RangeError, 'EXECUTION caused by the RangeError');
    console.log(`${''.padEnd(18)} cause: ${String(thrown.cause)}`);

    const badOutput = explain(await failure(exec.runTool('demo:broken'), 'output that breaks its schema'));
    check(hasErrorCode(badOutput, 'OUTPUT_VALIDATION'), 'OUTPUT_VALIDATION');

    const started = performance.now();
    const late = explain(await failure(exec.runTool('demo:slow', {}, { timeoutMs: 50 }), 'a call past its deadline'));
    check(hasErrorCode(late, 'TIMEOUT') && performance.now() - started < 1_000, 'TIMEOUT after about 50 ms');

    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user pressed stop')), 20);
    const aborted = explain(await failure(exec.runTool('demo:slow', {}, { signal: controller.signal }), 'an aborted call'));
    check(hasErrorCode(aborted, 'ABORTED'), 'ABORTED');
  },
  () => exec.close(),
);
