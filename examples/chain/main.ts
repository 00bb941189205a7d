/**
 * Chains: run tools one after another, each step optionally taking the previous step's result.
 *
 *   node --import tsx examples/chain/main.ts
 *
 * `usePrevious: true` puts the previous step's value at `args.previous`. A failing step stops the
 * chain (`ExecChainError`, with every step's outcome) unless it says `stopOnError: false`.
 * `timeoutMs` and `signal` cover the whole chain.
 */
import { createExec, ExecChainError, hasErrorCode, type ExecStepResult } from 'toolexec';
import { fxServer, shopTools, type Quote } from '../shared/shop.js';
import { check, failure, json, runExample, show } from '../shared/report.js';

const exec = createExec({ tools: shopTools(), mcpServers: { fx: fxServer } });

function printSteps(steps: ExecStepResult[]): void {
  for (const s of steps) {
    const violations = s.error?.details?.violations as { message: string }[] | undefined;
    const outcome = s.skipped ? 'skipped' : s.error ? `${s.error.code}: ${violations?.[0]?.message ?? s.error.message}` : json(s.value);
    const text = outcome.length > 72 ? `${outcome.slice(0, 71)}…` : outcome;
    show(`  step ${s.stepIndex}`, `${s.toolId.padEnd(19)} ${s.durationMs.toFixed(1).padStart(6)} ms  ${text}`);
  }
}

await runExample(
  'chain',
  async () => {
    // 1. Find the mugs, quote two of each, convert the total to GBP (an MCP tool).
    const progress: string[] = [];
    const { result, steps } = await exec.runChain(
      [
        { toolId: 'shop:find_products', args: { query: 'mug' } },
        { toolId: 'shop:quote', args: { quantity: 2 }, usePrevious: true },
        { toolId: 'fx:convert', args: { to: 'GBP' }, usePrevious: true },
      ],
      { onProgress: (p) => progress.push(`${p.progress}/${p.total ?? '?'} ${p.message ?? ''}`) },
    );
    show('chain', `3 steps in ${result.durationMs.toFixed(1)} ms; progress: ${progress.join(', ')}`);
    printSteps(steps);
    const quote = steps[1]?.value as Quote;
    check(
      quote.totalCents === 7300 && json(result.value) === json({ amountCents: 5767, currency: 'GBP', rate: 0.79 }),
      '7300 USD cents = 5767 GBP cents',
    );
    check(progress.at(-1) === '3/3 step_completed', 'progress ends with the third step');

    // 2. A step that may fail: `stopOnError: false` records the failure and goes on.
    const tolerant = await exec.runChain([
      { toolId: 'shop:restock', args: { sku: 'not a sku', units: 1 }, stopOnError: false },
      { toolId: 'shop:find_products', args: { query: 'shirt' } },
    ]);
    show('\ntolerant', 'the first step failed, the chain went on:');
    printSteps(tolerant.steps);
    check(
      hasErrorCode(tolerant.steps[0]?.error, 'VALIDATION') && tolerant.result.toolId === 'shop:find_products',
      'step 0 failed, step 1 ran',
    );

    // 3. Otherwise the first failure stops the chain: the rejection carries every step.
    const err = await failure(
      exec.runChain([
        { toolId: 'shop:find_products', args: { query: 'mug' } },
        { toolId: 'fx:convert', args: { to: 'JPY' }, usePrevious: true },
        { toolId: 'shop:quote', usePrevious: true },
      ]),
      'a chain with an invalid step',
    );
    check(err instanceof ExecChainError, 'an ExecChainError');
    show('\nstopped', `${err.code} at step ${err.stepIndex} (${err.toolId}); ${err.execSteps.length} steps reported`);
    printSteps(err.execSteps);
    check(
      err.code === 'VALIDATION' && err.stepIndex === 1 && err.execSteps[2]?.skipped === true,
      'step 1 failed validation, step 2 skipped',
    );

    // 4. The deadline covers the whole chain.
    const late = await failure(
      exec.runChain(
        [
          { toolId: 'shop:restock', args: { sku: 'MUG-1', units: 2 } },
          { toolId: 'shop:restock', args: { sku: 'MUG-2', units: 20 } },
        ],
        { timeoutMs: 120 },
      ),
      'a chain past its deadline',
    );
    check(late instanceof ExecChainError && hasErrorCode(late, 'TIMEOUT'), 'TIMEOUT');
    show('\ndeadline', `${late.code} at step ${late.stepIndex} after ${late.durationMs.toFixed(0)} ms (budget 120 ms for the whole chain)`);
    check(late.stepIndex === 1, 'the second step ran out of time');
  },
  () => exec.close(),
);
