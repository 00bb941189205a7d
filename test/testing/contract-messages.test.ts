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

  it('fails a backend that rejects on time but lets the run go on calling tools', () => {
    const name = 'runtime backend contract: backend that rejects on time but lets the run go on';
    // the abort test, which times the rejection only, passes it
    expect(results.get(`${name} stops when the signal aborts (ABORTED)`)?.status).toBe('passed');
    expect(
      failure(`${name} a run stopped by its timeout or an abort is stopped for real: no tool call reaches the gateway afterwards`),
    ).toContain('tool calls 300-600 ms after the timeout stopped the run');
  });

  it('names the field of a result of the wrong shape', () => {
    const message = failure('runtime backend contract: backend without toolCalls returns the top-level return value');
    expect(message).toContain(`backend.execute({ code: "return 'hello'" }) resolved with toolCalls = undefined: must be an array`);
    expect(
      failure('runtime backend contract: backend without toolCalls runs chains and records every step with its effective arguments'),
    ).not.toContain('TypeError');
  });

  it('names an index method that returns instead of throwing, with what it returned', () => {
    expect(failure('tool index contract: broken index getTool and getAllBackends of an unknown ID throw TOOL_NOT_FOUND')).toContain(
      'expected index.getTool("math:nope") to throw TOOL_NOT_FOUND, but it returned undefined',
    );
  });

  it('names an index page that ignores its limit, and change events whose versions do not increase', () => {
    const name = 'tool index contract: broken index';
    expect(failure(`${name} searchPage: pages of at most limit that add up to the whole search, the last without nextCursor`)).toContain(
      'index.searchPage("", 1) page 1 holds at most 1 items',
    );
    expect(failure(`${name} onChange: one event per change, with its tool, backend and version; refresh() too`)).toContain(
      'index.onChange: event versions must strictly increase, got [0,0,0,0,0]',
    );
    // what the defects do not touch passes
    expect(
      results.get(
        `${name} search: an empty query lists every tool in ID order; limit caps it, <= 0 gives []; a wrong type is INVALID_ARGUMENT`,
      )?.status,
    ).toBe('passed');
  });

  it('names a validator whose VALIDATION lists no violations, and one that does not check outputs', () => {
    const name = 'schema validator contract: broken validator';
    expect(failure(`${name} validateInput refuses arguments that do not fit: VALIDATION naming each wrong field, every time`)).toContain(
      'details.violations must list the violations, got undefined',
    );
    expect(
      failure(
        `${name} validateOutput: nothing to check without an output schema; OUTPUT_VALIDATION for a value that does not fit; undefined as null`,
      ),
    ).toMatch(
      /expected validator\.validateOutput\(\{"name":"check".*\}, \{"sum":"three"\}\) to throw OUTPUT_VALIDATION, but it returned undefined/,
    );
    expect(
      results.get(`${name} validate: a schema object, a boolean, JSON text or UTF-8 bytes, against any instance (undefined as null)`)
        ?.status,
    ).toBe('passed');
  });
});
