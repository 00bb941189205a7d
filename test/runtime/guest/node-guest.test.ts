import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createContractFixture } from '../../../src/testing/gateway-contract.js';
import {
  assetPath,
  heapLimitMiB,
  NODE_GUEST_LOADER,
  nodeGuestArgs,
  nodeGuestPath,
  nodeGuestSource,
  runGuestSession,
  type GuestSessionOutcome,
} from '../../../src/runtime/internal.js';
import { createDirectGateway, createTracingGateway } from '../../../src/runtime/index.js';
import type { GuestExit } from '../../../src/runtime/backends/containerd/index.js';

/** Runs `code` in a node guest started the way a container backend would: loader + program on stdin. */
async function runViaStdin(code: string, timeoutMs = 5000): Promise<GuestSessionOutcome> {
  const child = spawn(process.execPath, nodeGuestArgs({ mode: 'stdin' }), { env: {}, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<GuestExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  });
  return runGuestSession({
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    program: await nodeGuestSource(),
    code,
    gateway: createTracingGateway(createDirectGateway(createContractFixture())),
    timeoutMs,
    maxOutputBytes: 1 << 20,
    terminate: () => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // gone
      }
    },
    exited,
  });
}

describe('node guest', () => {
  it('ships as a bundle (dist/assets/node-guest.cjs, built from src/runtime/guest/node)', () => {
    expect(nodeGuestPath()).toBe(assetPath('node-guest.cjs'));
    expect(existsSync(nodeGuestPath())).toBe(true);
  });

  it('builds its argv: heap cap, flags, then the program', () => {
    expect(nodeGuestArgs({ memoryBytes: 64 * 1024 * 1024, nodeFlags: ['--no-warnings'] })).toEqual([
      '--max-old-space-size=64',
      '--no-warnings',
      nodeGuestPath(),
    ]);
    expect(nodeGuestArgs({ mode: 'stdin' })).toEqual(['-e', NODE_GUEST_LOADER]);
    expect(nodeGuestArgs({ guestPath: '/opt/guest.mjs' })).toEqual(['/opt/guest.mjs']);
    expect(heapLimitMiB(100)).toBe(1);
    expect(NODE_GUEST_LOADER.length).toBeLessThan(1024);
  });

  it('runs from stdin through the loader, with tools, output and a result', async () => {
    const outcome = await runViaStdin(
      "console.log('hi');\nconst r = await tools.runTool('test:add', { a: 20, b: 22 });\nreturn r.structured;",
    );
    expect(outcome.failure).toBeUndefined();
    expect(outcome).toMatchObject({ hasValue: true, value: 42, stdout: 'hi\n', stderr: '' });
  });

  it('reports failures with the snippet line through the loader too', async () => {
    const outcome = await runViaStdin("const a = 1;\nthrow new RangeError('bad range');");
    expect(outcome.failure).toMatchObject({
      code: 'CODE_EXECUTION',
      message: 'RangeError: bad range (line 2, col 7)',
      details: { line: 2, column: 7, name: 'RangeError' },
    });
  });

  it('ignores unknown host messages; an AbortSignal.timeout reason reads as TIMEOUT', async () => {
    const start = (code: string, signal?: AbortSignal) => {
      const child = spawn(process.execPath, nodeGuestArgs(), { env: {}, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      const exited = new Promise<GuestExit>((resolve) =>
        child.once('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal })),
      );
      child.stdin.write('{"type":"noise"}\nnot even json\n');
      return runGuestSession({
        stdin: child.stdin,
        stdout: child.stdout,
        code,
        gateway: createDirectGateway(createContractFixture()),
        timeoutMs: 20_000,
        maxOutputBytes: 1000,
        terminate: () => process.kill(-(child.pid as number), 'SIGKILL'),
        exited,
        ...(signal === undefined ? {} : { signal }),
      });
    };
    await expect(start('return 1')).resolves.toMatchObject({ hasValue: true, value: 1 });
    const outcome = await start('await new Promise(() => {});', AbortSignal.timeout(300));
    expect(outcome.failure?.code).toBe('TIMEOUT');
  });
});
