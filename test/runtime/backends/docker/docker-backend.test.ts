import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_DOCKER_LIMITS,
  DEFAULT_SANDBOX_IMAGE,
  buildSandboxImage,
  resolveContainerLimits,
  type DockerBackend,
} from '../../../../src/runtime/backends/docker/index.js';
import { containerCreateOptions } from '../../../../src/runtime/backends/docker/container-spec.js';
import { NODE_GUEST_LOADER } from '../../../../src/runtime/internal.js';
import { createDockerBackend, createGvisorBackend } from '../../../../src/runtime/index.js';
import { containersOf, docker, ensureImage, skipDocker } from './engine.js';
import { failure, isolationSuite, request } from './isolation.js';

const MiB = 1024 * 1024;

describe('docker backend: container spec', () => {
  const spec = containerCreateOptions({
    name: 'toolexec-test',
    image: 'img:1',
    owner: 'abc',
    kind: 'docker',
    limits: { memoryBytes: 128 * MiB, pidsMax: 32, cpuQuotaMs: 500, diskBytes: 8 * MiB },
  });

  it('hardens the container', () => {
    expect(spec).toMatchObject({
      Image: 'img:1',
      User: '65534:65534',
      WorkingDir: '/tmp',
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'HOME=/tmp'],
      NetworkDisabled: true,
      OpenStdin: true,
      StdinOnce: true,
      Tty: false,
      Labels: { 'toolexec.sandbox': 'abc', 'toolexec.sandbox.kind': 'docker' },
      HostConfig: {
        NetworkMode: 'none',
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        IpcMode: 'none',
        Privileged: false,
        LogConfig: { Type: 'none' },
        Memory: 128 * MiB,
        MemorySwap: 128 * MiB,
        PidsLimit: 32,
        NanoCpus: 500_000_000,
      },
    });
    expect(spec.HostConfig?.Tmpfs?.['/tmp']).toMatch(/^rw,noexec,nosuid,nodev,uid=65534,gid=65534,mode=1777,size=8388608$/);
    expect(spec.HostConfig?.Runtime).toBeUndefined();
  });

  it('starts the node guest loader with a heap cap at three quarters of the memory cap', () => {
    expect(spec.Cmd).toEqual(['/usr/local/bin/node', '--max-old-space-size=96', '-e', NODE_GUEST_LOADER]);
  });

  it('maps request limits over the defaults (0 = default) and keeps them in the engine range', () => {
    const defaults = { ...DEFAULT_DOCKER_LIMITS };
    expect(resolveContainerLimits(undefined, defaults)).toEqual(defaults);
    expect(resolveContainerLimits({ memoryBytes: 0, pidsMax: 10, cpuQuotaMs: 1, diskBytes: MiB }, defaults, 2)).toEqual({
      memoryBytes: 256 * MiB,
      pidsMax: 10,
      cpuQuotaMs: 10,
      diskBytes: MiB,
    });
    expect(resolveContainerLimits({ cpuQuotaMs: 8000, memoryBytes: 1024 }, defaults, 2)).toMatchObject({
      cpuQuotaMs: 2000,
      memoryBytes: 6 * MiB,
    });
    const uncapped = { memoryBytes: 0, pidsMax: 0, cpuQuotaMs: 0, diskBytes: 0 };
    const open = containerCreateOptions({ name: 'n', image: 'i', owner: 'o', kind: 'gvisor', runtime: 'runsc', limits: uncapped });
    expect(open.HostConfig).not.toHaveProperty('Memory');
    expect(open.HostConfig).not.toHaveProperty('PidsLimit');
    expect(open.HostConfig).not.toHaveProperty('NanoCpus');
    expect(open.HostConfig?.Tmpfs?.['/tmp']).not.toContain('size=');
    expect(open.HostConfig?.Runtime).toBe('runsc');
    expect(open.Cmd).toEqual(['/usr/local/bin/node', '-e', NODE_GUEST_LOADER]);
  });

  it('rejects bad backend options', () => {
    expect(() => createDockerBackend({ limits: { memoryBytes: -1 } })).toThrow(/memoryBytes/);
    expect(() => createDockerBackend({ defaultTimeoutMs: 0 })).toThrow(/defaultTimeoutMs/);
    expect(() => createDockerBackend({ pool: { size: -2 } })).toThrow(/pool.size/);
  });
});

describe('docker backend: an engine that is down', () => {
  const dockerOptions = { socketPath: '/nonexistent/toolexec/docker.sock' };

  it('fails runs with RUNTIME_UNAVAILABLE and the reason', async () => {
    for (const backend of [createDockerBackend({ dockerOptions }), createGvisorBackend({ dockerOptions })]) {
      const error = await failure(backend.execute(request('return 1')));
      expect(error.code).toBe('RUNTIME_UNAVAILABLE');
      expect(error.message).toContain('unix:///nonexistent/toolexec/docker.sock');
      expect(error.message).toMatch(/ENOENT/);
      expect(error.details?.result?.backend.kind).toBe(backend.kind);
      await expect(backend.warmUp()).rejects.toMatchObject({ code: 'RUNTIME_UNAVAILABLE' });
      await backend.close();
    }
  });

  it('fails the image build with RUNTIME_UNAVAILABLE', async () => {
    await expect(buildSandboxImage({ dockerOptions, tag: 'toolexec-never:built' })).rejects.toMatchObject({ code: 'RUNTIME_UNAVAILABLE' });
  });
});

describe.skipIf(skipDocker)('docker backend', () => {
  isolationSuite({ kind: 'docker', create: () => createDockerBackend(), leakRuns: 100, leakConcurrency: 4 });

  describe('runs', () => {
    let backend: DockerBackend;
    beforeAll(async () => {
      await ensureImage();
      backend = createDockerBackend();
    });
    afterAll(async () => {
      await backend?.close();
      expect(await containersOf(backend.id)).toEqual([]);
    });

    it('runs as nobody without capabilities, with a minimal environment and the limits it reports', async () => {
      const code = `
const fs = await import('node:fs');
const v8 = await import('node:v8');
const read = (f) => { try { return fs.readFileSync(f, 'utf8').trim(); } catch (e) { return e.code; } };
const status = Object.fromEntries(read('/proc/self/status').split('\\n').map((l) => l.split(':\\t')).filter((p) => /^(Uid|Gid|CapEff|CapBnd|NoNewPrivs|Seccomp)$/.test(p[0])));
const tmp = fs.statfsSync('/tmp');
return {
  status, env: Object.keys(process.env).sort(),
  memory: read('/sys/fs/cgroup/memory/memory.limit_in_bytes'), pids: read('/sys/fs/cgroup/pids/pids.max'),
  quota: read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'), period: read('/sys/fs/cgroup/cpu/cpu.cfs_period_us'),
  tmpBytes: tmp.bsize * tmp.blocks, heapLimit: v8.getHeapStatistics().heap_size_limit, shm: fs.existsSync('/dev/shm'),
};`;
      const result = await backend.execute(
        request(code, { limits: { memoryBytes: 200 * MiB, pidsMax: 40, cpuQuotaMs: 500, diskBytes: 4 * MiB } }),
      );
      const value = result.value as Record<string, unknown> & { status: Record<string, string>; heapLimit: number };
      expect(value.status).toMatchObject({
        Uid: '65534\t65534\t65534\t65534',
        Gid: '65534\t65534\t65534\t65534',
        CapEff: '0000000000000000',
        CapBnd: '0000000000000000',
        NoNewPrivs: '1',
        Seccomp: '2',
      });
      expect(value.env).toEqual(['HOME', 'HOSTNAME', 'PATH']);
      expect(value).toMatchObject({
        memory: String(200 * MiB),
        pids: '40',
        quota: '50000',
        period: '100000',
        tmpBytes: 4 * MiB,
        shm: false,
      });
      expect(value.heapLimit).toBeLessThan(200 * MiB);
      expect(result.limitsEnforced).toEqual({
        timeout: true,
        toolCalls: true,
        chainSteps: true,
        memory: true,
        cpu: true,
        pids: true,
        disk: true,
      });
      expect(result.backend.details).toMatchObject({
        memoryBytes: 200 * MiB,
        pidsMax: 40,
        cpuQuotaMs: 500,
        diskBytes: 4 * MiB,
        pooled: false,
      });
    });

    it('takes the snippet on stdin: a 2 MiB snippet runs (argv and env stop at 128 KiB)', async () => {
      const big = 'x'.repeat(2 * MiB);
      const result = await backend.execute(request(`const s = '${big}';\nreturn s.length;`));
      expect(result.value).toBe(2 * MiB);
    });

    it('caps raw writes to the container stdout and stderr (RESOURCE_LIMIT output)', async () => {
      for (const fd of [1, 2]) {
        const code = `const fs = await import('node:fs');\nconst chunk = 'y'.repeat(1 << 20) + '\\n';\nfor (let i = 0; i < 50; i++) fs.writeSync(${fd}, chunk);\nreturn 'done';`;
        const started = performance.now();
        const error = await failure(backend.execute(request(code, { limits: { maxOutputBytes: 64 * 1024 } })));
        expect(error.code, error.message).toBe('RESOURCE_LIMIT');
        expect(error.details?.limit).toBe('output');
        const partial = error.details?.result;
        expect((partial?.stdout.length ?? 0) + (partial?.stderr.length ?? 0)).toBeLessThanOrEqual(64 * 1024);
        expect(performance.now() - started).toBeLessThan(10_000);
      }
    });

    it('reports what a backend without default caps does not enforce', async () => {
      const open = createDockerBackend({ limits: { memoryBytes: 0, pidsMax: 0, cpuQuotaMs: 0, diskBytes: 0 } });
      try {
        const result = await open.execute(
          request("return (await import('node:fs')).readFileSync('/sys/fs/cgroup/pids/pids.max', 'utf8').trim()"),
        );
        expect(result.value).toBe('max');
        expect(result.limitsEnforced).toEqual({
          timeout: true,
          toolCalls: true,
          chainSteps: true,
          memory: false,
          cpu: false,
          pids: false,
          disk: false,
        });
      } finally {
        await open.close();
      }
    });

    it('fails when the image does not exist (RUNTIME_UNAVAILABLE, pointing at sandbox:image)', async () => {
      const missing = createDockerBackend({ image: 'toolexec-missing-image:none' });
      const error = await failure(missing.execute(request('return 1')));
      expect(error.code).toBe('RUNTIME_UNAVAILABLE');
      expect(error.message).toContain('sandbox:image');
      await missing.close();
      expect(await containersOf(missing.id)).toEqual([]);
    });

    it('fails when the engine has no such runtime (RUNTIME_UNAVAILABLE, naming the runtimes it has)', async () => {
      const missing = createGvisorBackend({ runtime: 'no-such-runtime' });
      const error = await failure(missing.execute(request('return 1')));
      expect(error.code).toBe('RUNTIME_UNAVAILABLE');
      expect(error.message).toContain('"no-such-runtime"');
      expect(error.message).toContain('runc');
      await missing.close();
    });

    it('removes the container of a run that is still going when the backend closes', async () => {
      const closing = createDockerBackend();
      const pending = failure(closing.execute(request("console.log('started');\nawait new Promise((r) => setTimeout(r, 20000));")));
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await closing.close();
      const error = await pending;
      expect(error.code).toBe('RUNTIME_UNAVAILABLE');
      expect(await containersOf(closing.id)).toEqual([]);
      expect((await failure(closing.execute(request('return 1')))).code).toBe('RUNTIME_UNAVAILABLE');
    });
  });

  describe('warm pool (beta)', () => {
    let pooled: DockerBackend;
    beforeAll(async () => {
      await ensureImage();
      pooled = createDockerBackend({ pool: { size: 1 } });
      await pooled.warmUp();
    });
    afterAll(async () => {
      await pooled?.close();
    });

    it('reports beta and serves runs from started containers', async () => {
      expect(pooled.readiness).toBe('beta');
      expect(pooled.poolStats()).toMatchObject({ size: 1, idle: 1 });
      const result = await pooled.execute(request('return 1'));
      expect(result.backend).toMatchObject({ kind: 'docker', readiness: 'beta', details: { pooled: true } });
    });

    it('never shows a file written by one run to the next', async () => {
      const write = "const fs = await import('node:fs');\nfs.writeFileSync('/tmp/left-behind', 'secret');\nreturn fs.readdirSync('/tmp');";
      const read =
        "const fs = await import('node:fs');\nreturn { files: fs.readdirSync('/tmp'), exists: fs.existsSync('/tmp/left-behind') };";
      await pooled.warmUp();
      const first = await pooled.execute(request(write));
      expect(first.value).toEqual(['left-behind']);
      await pooled.warmUp();
      const second = await pooled.execute(request(read));
      expect(second.value).toEqual({ files: [], exists: false });
      expect(first.backend.details?.pooled).toBe(true);
      expect(second.backend.details?.pooled).toBe(true);
      expect(second.backend.details?.container).not.toBe(first.backend.details?.container);
    });

    it('starts a fresh container for a request whose limits differ from the pool', async () => {
      const result = await pooled.execute(request('return 1', { limits: { memoryBytes: 64 * MiB } }));
      expect(result.backend.details).toMatchObject({ pooled: false, memoryBytes: 64 * MiB });
    });

    it('stays bounded and removes its containers on close', async () => {
      await Promise.all([1, 2, 3].map(() => pooled.execute(request('return 1'))));
      await pooled.warmUp();
      await pooled.settled();
      expect(pooled.poolStats()?.idle).toBe(1);
      expect(await containersOf(pooled.id)).toHaveLength(1);
      await pooled.close();
      expect(await containersOf(pooled.id)).toEqual([]);
      expect(pooled.poolStats()?.idle).toBe(0);
    });
  });

  describe('sandbox image', () => {
    it('is idempotent: an existing tag is kept', async () => {
      const first = await ensureImage();
      const again = await buildSandboxImage();
      expect(again).toMatchObject({ tag: DEFAULT_SANDBOX_IMAGE, id: first.id, built: false, nodeVersion: process.versions.node });
    });

    it('builds a minimal image from the host node and its libraries (forced, under another tag)', async () => {
      const tag = `toolexec-sandbox-test:${process.pid}`;
      try {
        const image = await buildSandboxImage({ tag, force: true });
        expect(image.built).toBe(true);
        expect(image.files).toContain('/usr/local/bin/node');
        expect(image.files?.some((file) => /\/libc\.so\.6$/.test(file))).toBe(true);
        expect(image.files).toEqual(expect.arrayContaining(['/etc/passwd', '/etc/group']));
        const info = (await docker.getImage(tag).inspect()) as {
          Config: { User: string; WorkingDir: string; Cmd: string[]; Env: string[] };
          Size: number;
        };
        expect(info.Config).toMatchObject({ User: '65534:65534', WorkingDir: '/tmp', Cmd: ['/usr/local/bin/node'] });
        expect(info.Config.Env).toContain('HOME=/tmp');
        expect(info.Size).toBeLessThan(200 * MiB);
        const backend = createDockerBackend({ image: tag });
        await expect(backend.execute(request('return process.version'))).resolves.toMatchObject({ value: process.version });
        await backend.close();
      } finally {
        await docker
          .getImage(tag)
          .remove({ force: true })
          .catch(() => undefined);
      }
    });
  });
});
