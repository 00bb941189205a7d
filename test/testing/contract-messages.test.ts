import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Assertion {
  fullName: string;
  status: string;
  failureMessages: string[];
  duration?: number;
}

/** Ended at the fixture's 5 s vitest timeout (the JSON report shows such a failure as `STACK_TRACE_ERROR`). */
const timedOut = (test: Assertion): boolean =>
  (test.duration ?? 0) >= 5_000 || test.failureMessages.some((message) => /timed out|STACK_TRACE_ERROR/i.test(message));

const root = fileURLToPath(new URL('../..', import.meta.url));
const config = fileURLToPath(new URL('fixtures/vitest.config.ts', import.meta.url));

// The contract suites run against implementations broken on purpose (fixtures/broken-implementations.ts),
// in a vitest of their own with its default 5 s test timeout.
describe('contract suites against broken implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolexec-contract-messages-'));
  const results = new Map<string, Assertion>();

  beforeAll(async () => {
    const report = join(dir, 'report.json');
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const args = [vitest, 'run', '--config', config, '--reporter=json', `--outputFile=${report}`];
    await promisify(execFile)(process.execPath, args, { cwd: root, env: { ...process.env, CI: '' } }).catch(() => undefined);
    const parsed = JSON.parse(readFileSync(report, 'utf8')) as { testResults: { assertionResults: Assertion[] }[] };
    for (const file of parsed.testResults) for (const test of file.assertionResults) results.set(test.fullName, test);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const failure = (name: string): string => {
    const test = results.get(name);
    expect(test, `no test named "${name}" (ran: ${[...results.keys()].length})`).toBeDefined();
    expect(test?.status).toBe('failed');
    expect(test !== undefined && timedOut(test), `${name} timed out`).toBe(false);
    return test?.failureMessages.join('\n') ?? '';
  };

  it('never ends a test at the vitest timeout', () => {
    expect(results.size).toBeGreaterThan(50);
    expect([...results.values()].filter(timedOut).map((test) => test.fullName)).toEqual([]);
  });

  it('names a gateway method that throws synchronously', () => {
    const message = failure('gateway contract: broken gateway describeTool of an unknown tool rejects with TOOL_NOT_FOUND');
    expect(message).toContain('gateway.describeTool("nonexistent:tool", "summary") threw synchronously');
    expect(message).toContain('TOOL_NOT_FOUND: no tool nonexistent:tool');
  });

  it('names a gateway method that never settles', () => {
    expect(failure('gateway contract: broken gateway listNamespaces lists the namespaces')).toContain(
      'gateway.listNamespaces() did not settle within',
    );
  });

  it('names a gateway method that ignores its signal, with what it resolved with', () => {
    expect(failure('gateway contract: broken gateway runTool with an aborted signal rejects with ABORTED')).toMatch(
      /expected gateway\.runTool\("test:add", .*aborted.*\) to reject, but it resolved with \{"tool"/,
    );
    expect(failure('gateway contract: broken gateway runTool aborted while running rejects with ABORTED')).toContain(
      'did not settle within 2000ms',
    );
  });

  it('names a gateway result of the wrong shape', () => {
    expect(failure('gateway contract: broken gateway searchTools returns at most `limit` summaries')).toContain(
      `gateway.searchTools('', 5) must resolve with an array, got {"items":[]}`,
    );
    expect(failure('gateway contract: broken gateway searchTools returns full summaries, exact name first')).not.toContain('TypeError');
  });

  it('names a backend whose execute throws synchronously', () => {
    const message = failure('runtime backend contract: backend that throws synchronously rejects a request without code (MISSING_CODE)');
    expect(message).toContain('backend.execute({ code: "" }) threw synchronously');
  });

  it('fails a backend that ignores its timeout or signal within the bound, naming the run', () => {
    const name = 'runtime backend contract: backend that ignores timeouts and aborts';
    expect(failure(`${name} stops an endless loop at timeoutMs (TIMEOUT)`)).toContain(
      'backend.execute({ code: "while (true) {}", timeoutMs: 300 }) did not settle within 800ms',
    );
    expect(failure(`${name} stops when the signal aborts (ABORTED)`)).toContain('did not settle within 650ms');
  });

  it('names the field of a result of the wrong shape', () => {
    const message = failure('runtime backend contract: backend without toolCalls returns the top-level return value');
    expect(message).toContain(`backend.execute({ code: "return 'hello'" }) resolved with toolCalls = undefined: must be an array`);
    expect(
      failure('runtime backend contract: backend without toolCalls runs chains and records every step with its effective arguments'),
    ).not.toContain('TypeError');
  });
});
