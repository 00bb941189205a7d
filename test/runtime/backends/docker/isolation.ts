/**
 * Isolation checks shared by the docker and gvisor tests: fork bomb, a 2 GB allocation, the
 * network, writable paths, and no container left behind after many runs with random aborts.
 */
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';
import { createDirectGateway, type ExecuteRequest, type ExecuteResult } from '../../../../src/runtime/index.js';
import type { ContainerSandboxBackend } from '../../../../src/runtime/backends/docker/index.js';
import { containersOf, ensureImage } from './engine.js';

type Failure = Error & { code?: string; details?: Record<string, unknown> & { result?: ExecuteResult } };

export async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail');
}

export function request(code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest {
  return { code, gateway: createDirectGateway(createContractFixture()), ...extra };
}

/** A recursive fork bomb: each child starts two more; then a burst of 64 spawns, and the pids cgroup. */
export const FORK_BOMB = `
const { spawn } = await import('node:child_process');
const { readFileSync } = await import('node:fs');
const B = "const s=()=>{try{require('child_process').spawn(process.execPath,['-e',process.env.B],{stdio:'ignore',env:{B:process.env.B}}).on('error',()=>{})}catch{}};s();s();setInterval(()=>{},1000)";
for (let i = 0; i < 4; i++) { try { spawn(process.execPath, ['-e', B], { stdio: 'ignore', env: { B } }).on('error', () => {}); } catch {} }
await new Promise((r) => setTimeout(r, 2000));
// The bomb churns (the cap counts threads, and a node child that cannot start one dies and frees
// a few), so one probe fork may find a free slot. A burst of 64 forks in one synchronous loop
// cannot all fit under a cap of 32 before any of them could exit: some must be refused.
const probes = [];
for (let i = 0; i < 64; i++) {
  probes.push(new Promise((resolve) => {
    try {
      const c = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
      c.on('error', (e) => resolve(e.code));
      c.on('spawn', () => resolve('spawned'));
    } catch (e) { resolve(e.code); }
  }));
}
const outcomes = await Promise.all(probes);
const refused = outcomes.find((o) => o !== 'spawned') ?? 'spawned';
const read = (f) => { try { return readFileSync(f, 'utf8').trim(); } catch (e) { return e.code; } };
return { refused, max: read('/sys/fs/cgroup/pids/pids.max'), current: read('/sys/fs/cgroup/pids/pids.current') };`;

/** 2 GB in 64 MB buffers, each filled (so the pages are really used); buffers live outside the V8 heap. */
export const TWO_GB = `
const chunks = [];
for (let i = 0; i < 32; i++) chunks.push(Buffer.alloc(64 * 1024 * 1024, i));
return chunks.length;`;

/** Tries to create a file in every directory (6 levels), every mount point and a few named places. */
export const WRITABLE_PATHS = `
const fs = await import('node:fs');
const path = await import('node:path');
const results = {};
const probe = (dir) => {
  const file = path.join(dir, '.toolexec-probe-' + Math.random().toString(16).slice(2));
  try { fs.writeFileSync(file, 'x'); fs.unlinkSync(file); return 'writable'; } catch (e) { return e.code; }
};
const walk = (dir, depth) => {
  results[dir] = probe(dir);
  if (depth === 0 || dir === '/proc' || dir === '/sys') return;
  let entries = [];
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
  for (const entry of entries) if (entry.isDirectory()) walk(path.join(dir, entry.name), depth - 1);
};
walk('/', 6);
for (const dir of ['/', '/usr', '/home', '/root', '/etc', '/var/tmp', '/dev', '/dev/shm', '/run', process.cwd()]) results[dir] = probe(dir);
for (const line of fs.readFileSync('/proc/self/mounts', 'utf8').trim().split('\\n')) {
  const mount = line.split(' ')[1];
  if (!mount.startsWith('/proc/') && !mount.startsWith('/sys/')) results[mount] ??= probe(mount);
}
return { cwd: process.cwd(), probed: Object.keys(results).length, writable: Object.keys(results).filter((dir) => results[dir] === 'writable') };`;

function networkSnippet(port: number, hosts: readonly string[]): string {
  return `
const net = await import('node:net');
const os = await import('node:os');
const attempt = (host) => new Promise((resolve) => {
  const socket = net.connect({ host, port: ${port}, timeout: 1500 });
  socket.on('connect', () => { socket.destroy(); resolve('connected'); });
  socket.on('timeout', () => { socket.destroy(); resolve('timeout'); });
  socket.on('error', (e) => resolve(e.code));
});
const results = {};
for (const host of ${JSON.stringify(hosts)}) results[host] = await attempt(host);
let fetched;
try { fetched = (await fetch('http://${hosts[0] ?? '127.0.0.1'}:${port}/')).status; } catch (e) { fetched = String(e.cause?.code ?? e.message); }
return { results, fetched, interfaces: Object.keys(os.networkInterfaces()) };`;
}

/** A tiny seeded random generator (reproducible runs). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Runs `count` tasks, at most `concurrency` at a time. */
async function limited(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        await task(i);
      }
    }),
  );
}

export interface IsolationOptions {
  kind: 'docker' | 'gvisor';
  create: () => ContainerSandboxBackend;
  /** Runs of the leak test. */
  leakRuns: number;
  leakConcurrency: number;
}

/** Registers the isolation checks for one backend kind. */
export function isolationSuite(options: IsolationOptions): void {
  describe(`${options.kind}: isolation`, () => {
    let backend: ContainerSandboxBackend;

    beforeAll(async () => {
      await ensureImage();
      backend = options.create();
      await backend.warmUp();
    });
    afterAll(async () => {
      await backend?.close();
    });

    it('contains a fork bomb with the pids limit', async () => {
      const started = performance.now();
      const outcome = await backend
        .execute(request(FORK_BOMB, { timeoutMs: 15_000, limits: { pidsMax: 32, memoryBytes: 1024 * 1024 * 1024 } }))
        .then(
          (result) => ({ result, error: undefined }),
          (error: Failure) => ({ result: undefined, error }),
        );
      expect(performance.now() - started).toBeLessThan(20_000);
      if (options.kind === 'docker') {
        // runc: the cgroup caps the container at 32 tasks and the next fork fails inside it
        expect(outcome.error?.message).toBeUndefined();
        expect(outcome.result?.value).toEqual({ refused: 'EAGAIN', max: '32', current: expect.stringMatching(/^\d+$/) });
        expect(Number((outcome.result?.value as { current: string }).current)).toBeLessThanOrEqual(32);
        expect(outcome.result?.limitsEnforced.pids).toBe(true);
      } else {
        // gVisor: the cap counts the sandbox's own host threads; exhausting it ends the whole sandbox
        expect(outcome.error?.code, outcome.error?.message).toBe('CODE_EXECUTION');
        expect(outcome.error?.details?.result?.limitsEnforced.pids).toBe(true);
      }
      // the engine and the backend are fine afterwards, and nothing is left
      await expect(backend.execute(request('return 42'))).resolves.toMatchObject({ value: 42 });
      await backend.settled();
      expect(await containersOf(backend.id)).toEqual([]);
    });

    it('OOM-kills a 2 GB allocation at the memory limit (RESOURCE_LIMIT)', async () => {
      const started = performance.now();
      const error = await failure(backend.execute(request(TWO_GB, { timeoutMs: 20_000, limits: { memoryBytes: 128 * 1024 * 1024 } })));
      expect(error.code, error.message).toBe('RESOURCE_LIMIT');
      expect(error.details?.limit).toBe('memory');
      // runc records the kernel's OOM kill; gVisor's engine at times does not (the backend then says so)
      if (options.kind === 'docker') expect(error.details?.oomKilled).toBe(true);
      else expect([true, false]).toContain(error.details?.oomKilled);
      expect(error.details?.result?.limitsEnforced.memory).toBe(true);
      expect(performance.now() - started).toBeLessThan(20_000);
    });

    it('a SIGKILL of the main process: ignored under runc (PID 1); under gVisor taken as the memory limit, saying so', async () => {
      const code = "process.kill(process.pid, 'SIGKILL');\nawait new Promise((r) => setTimeout(r, 1000));\nreturn 'alive';";
      const run = backend.execute(request(code, { timeoutMs: 15_000, limits: { memoryBytes: 128 * 1024 * 1024 } }));
      if (options.kind === 'docker') {
        await expect(run).resolves.toMatchObject({ value: 'alive' });
      } else {
        const error = await failure(run);
        expect(error.code, error.message).toBe('RESOURCE_LIMIT');
        expect(error.details).toMatchObject({ limit: 'memory', oomKilled: false });
        expect(error.message).toContain('the engine recorded no OOM kill');
      }
    });

    it('stops a heap that outgrows the memory limit (RESOURCE_LIMIT)', async () => {
      const code = 'const keep = [];\nfor (;;) keep.push(new Array(1 << 20).fill(1.5));';
      const error = await failure(backend.execute(request(code, { timeoutMs: 20_000, limits: { memoryBytes: 96 * 1024 * 1024 } })));
      expect(error.code, error.message).toBe('RESOURCE_LIMIT');
      expect(error.details?.limit).toBe('memory');
    });

    describe('network', () => {
      let server: Server;
      let connections = 0;
      beforeAll(async () => {
        server = createServer((socket) => {
          connections += 1;
          socket.destroy();
        });
        await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
      });
      afterAll(async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });

      it('has none: not even the host 127.0.0.1, the bridge gateway or the host addresses', async () => {
        const port = (server.address() as { port: number }).port;
        const hostAddresses = Object.values(networkInterfaces())
          .flat()
          .filter((address) => address !== undefined && address.family === 'IPv4' && !address.internal)
          .map((address) => address?.address as string);
        const hosts = ['127.0.0.1', '172.17.0.1', ...hostAddresses];
        const result = await backend.execute(request(networkSnippet(port, hosts), { timeoutMs: 20_000 }));
        const value = result.value as { results: Record<string, string>; fetched: unknown; interfaces: string[] };
        expect(value.interfaces).toEqual(['lo']);
        for (const host of hosts) expect(value.results[host], host).not.toBe('connected');
        expect(value.fetched).not.toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(connections, 'connections that reached the host server').toBe(0);
      });
    });

    it('has no writable path but /tmp (the working directory)', async () => {
      const result = await backend.execute(request(WRITABLE_PATHS, { timeoutMs: 20_000 }));
      const value = result.value as { cwd: string; probed: number; writable: string[] };
      expect(value.cwd).toBe('/tmp');
      expect(value.probed).toBeGreaterThan(10);
      expect(value.writable).toEqual(['/tmp']);
      expect(result.limitsEnforced.disk).toBe(true);
    });

    it(`leaves no container behind after ${options.leakRuns} runs with random aborts`, async () => {
      const leaky = options.create();
      const random = seeded(20261121);
      const outcomes: Record<string, number> = {};
      try {
        await limited(options.leakRuns, options.leakConcurrency, async (i) => {
          const controller = new AbortController();
          const roll = random();
          const code =
            roll < 0.3
              ? `return ${i}`
              : roll < 0.6
                ? "console.log('x'); await new Promise((r) => setTimeout(r, 5000)); return 0"
                : `let n = 0; for (;;) n++;`;
          const abortAfterMs = random() < 0.75 ? Math.floor(random() * 700) : undefined;
          const timer =
            abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(new Error('random abort')), abortAfterMs);
          try {
            const result = await leaky.execute(request(code, { signal: controller.signal, timeoutMs: 1_000 }));
            outcomes.ok = (outcomes.ok ?? 0) + 1;
            expect(result.value).toBeTypeOf('number');
          } catch (err) {
            const code = (err as Failure).code ?? 'none';
            outcomes[code] = (outcomes[code] ?? 0) + 1;
            expect(['ABORTED', 'TIMEOUT'], (err as Error).message).toContain(code);
          } finally {
            clearTimeout(timer);
          }
        });
        expect(outcomes.ABORTED ?? 0).toBeGreaterThan(0);
        // every run has settled: the removals still in flight finish, and nothing is left
        await leaky.settled();
        expect(await containersOf(leaky.id)).toEqual([]);
      } finally {
        await leaky.close();
      }
      expect(await containersOf(leaky.id)).toEqual([]);
    }, 180_000);
  });
}
