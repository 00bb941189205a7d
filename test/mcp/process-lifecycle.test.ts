import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INHERITED_ENV_VARS, serverEnvironment } from '../../src/mcp/index.js';
import { TailBuffer } from '../../src/mcp/process-tree.js';
import { activeResources, expectNoLeakedResources, isProcessAlive, waitUntil } from './helpers.js';

const HOST = fileURLToPath(new URL('../fixtures/mcp/forgetful-host.ts', import.meta.url));

let baseline: Map<string, number>;
beforeAll(() => {
  baseline = activeResources();
});
afterAll(async () => {
  await expectNoLeakedResources(baseline);
});

describe('server process lifecycle', () => {
  it('a host that never calls close() still exits, and its servers die with it', async () => {
    const host = spawn(process.execPath, ['--import', 'tsx', HOST], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    host.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    host.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        host.kill('SIGKILL');
        resolve(-1);
      }, 15_000);
      host.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect(err).toBe('');
    // -1 would mean the idle server kept the host alive until the test killed it.
    expect(exitCode).toBe(0);
    const { pid, grandchild } = JSON.parse(out) as { pid: number; grandchild: number };
    expect(await waitUntil(() => !isProcessAlive(pid) && !isProcessAlive(grandchild), 2000)).toBe(true);
  });
});

describe('server environment', () => {
  it('inherits only the safe variables, skips exported shell functions, and adds the config env', () => {
    const saved = { ...process.env };
    try {
      process.env.AWS_SECRET_ACCESS_KEY = 'secret';
      process.env.SHELL = '() { evil; }';
      const env = serverEnvironment({ API_KEY: 'k', PATH: '/custom/bin' });
      expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
      expect(env.SHELL).toBeUndefined();
      expect(env.API_KEY).toBe('k');
      expect(env.PATH).toBe('/custom/bin');
      for (const key of Object.keys(env)) expect([...DEFAULT_INHERITED_ENV_VARS, 'API_KEY']).toContain(key);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});

describe('TailBuffer', () => {
  it('keeps only the last bytes', () => {
    const tail = new TailBuffer(10);
    tail.append(Buffer.from('0123456789'));
    tail.append(Buffer.from('abcde'));
    expect(tail.text()).toBe('56789abcde');
    tail.append(Buffer.from('0123456789XYZ'));
    expect(tail.text()).toBe('3456789XYZ');
  });

  it('drops a multi-byte character cut in half at the start', () => {
    const tail = new TailBuffer(4);
    tail.append(Buffer.from('ab€cd')); // € is 3 bytes: the last 4 bytes start inside it
    expect(tail.text()).toBe('cd');
    const whole = new TailBuffer(5);
    whole.append(Buffer.from('ab€cd'));
    expect(whole.text()).toBe('€cd');
  });

  it('keeps nothing with a zero limit', () => {
    const tail = new TailBuffer(0);
    tail.append(Buffer.from('x'));
    expect(tail.text()).toBe('');
  });
});
