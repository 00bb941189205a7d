import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HIDE = fileURLToPath(new URL('../fixtures/otel-absent/hide-otel.mjs', import.meta.url));
const MAIN = fileURLToPath(new URL('../fixtures/otel-absent/main.ts', import.meta.url));

describe('without @opentelemetry/api', () => {
  it('the library loads and runs calls, chains, streams and snippets; events and redaction still work', () => {
    const child = spawnSync(process.execPath, ['--import', HIDE, '--import', 'tsx', MAIN], {
      encoding: 'utf8',
      timeout: 120_000,
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    expect(child.stderr).not.toMatch(/Error/);
    expect(child.status).toBe(0);
    const out = JSON.parse(child.stdout) as Record<string, unknown>;
    expect(out).toEqual({
      apiHidden: true,
      importHidden: true,
      loaded: false,
      registered: false,
      run: 3,
      chain: 4,
      streamed: ['progress', 'progress', 'done'],
      failure: 'run: execute math:fail [local]: execution error: no [REDACTED]',
      code: 10,
      events: [
        'call.started',
        'call.finished',
        'call.started',
        'call.finished',
        'call.started',
        'call.finished',
        'call.started',
        'call.failed',
        'call.started',
        'call.finished',
        'sandbox.run',
      ],
    });
  }, 150_000);
});
