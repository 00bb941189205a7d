import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONTAINER_LANGUAGES,
  PYTHON_SANDBOX_IMAGE_LABEL,
  SANDBOX_PYTHON_PATH,
  buildPythonSandboxImage,
  hostPythonSandboxImage,
  type DockerBackend,
} from '../../../../src/runtime/backends/docker/index.js';
import { containerCreateOptions } from '../../../../src/runtime/backends/docker/container-spec.js';
import { pythonGuestCommand } from '../../../../src/runtime/backends/docker/python-guest.js';
import { createDockerBackend, createGvisorBackend } from '../../../../src/runtime/index.js';
import { containersOf, docker, skipDocker, skipGvisor } from './engine.js';
import { failure } from './isolation.js';
import { ensurePythonImage, pythonRequest } from './python-engine.js';
import { pythonSuite } from './python-suite.js';

describe('docker backend: the python guest container', () => {
  it('runs the interpreter isolated (-I -S -B, UTF-8 mode) with the loader, hardened like the node guest', () => {
    const spec = containerCreateOptions({
      name: 'toolexec-test',
      image: 'toolexec-sandbox:python-3.11.7',
      owner: 'abc',
      kind: 'docker',
      command: pythonGuestCommand(),
      limits: { memoryBytes: 128 * 1024 * 1024, pidsMax: 32, cpuQuotaMs: 500, diskBytes: 0 },
    });
    expect(spec.Cmd?.slice(0, 7)).toEqual([SANDBOX_PYTHON_PATH, '-I', '-S', '-B', '-X', 'utf8', '-c']);
    expect(spec.Cmd?.[7]).toContain('sys.stdin.buffer.readline()');
    expect(spec).toMatchObject({
      User: '65534:65534',
      NetworkDisabled: true,
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'HOME=/tmp'],
      HostConfig: { NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], Memory: 128 * 1024 * 1024, PidsLimit: 32 },
    });
    expect(CONTAINER_LANGUAGES).toEqual(['javascript', 'typescript', 'python']);
  });
});

describe('docker backend: python options', () => {
  it('refuses an empty pythonImage or pythonPath (CONFIGURATION)', () => {
    expect(() => createDockerBackend({ pythonImage: '' })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
    expect(() => createDockerBackend({ pythonPath: ' ' })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
  });

  it('names what to install when the python3 to build from cannot be run (RUNTIME_UNAVAILABLE)', async () => {
    const error = await failure(buildPythonSandboxImage({ pythonPath: '/nonexistent/python3' }));
    expect(error.code).toBe('RUNTIME_UNAVAILABLE');
    expect(error.message).toContain('/nonexistent/python3');
    expect(error.message).toContain('install python3');
  });
});

describe.skipIf(skipDocker)('docker backend: the python image', () => {
  it('is made from the host python3: tagged with its version, the standard library without tests or site-packages', async () => {
    const info = await ensurePythonImage();
    expect(info.tag).toBe(await hostPythonSandboxImage());
    expect(info.tag).toMatch(/^toolexec-sandbox:python-3\.\d+\.\d+$/);
    const inspected = (await docker.getImage(info.tag).inspect()) as { Config: { Labels: Record<string, string>; User: string } };
    expect(inspected.Config.Labels[PYTHON_SANDBOX_IMAGE_LABEL]).toBe(info.tag.slice('toolexec-sandbox:python-'.length));
    expect(inspected.Config.User).toBe('65534:65534');
    // a second build keeps the tag
    await expect(buildPythonSandboxImage()).resolves.toMatchObject({ built: false, tag: info.tag });
    const backend = createDockerBackend();
    try {
      const code = [
        'import os, sys, sqlite3, json, decimal, hashlib, zlib, ssl',
        'lib = os.path.dirname(os.__file__)',
        '{"prefix": sys.prefix, "lib": lib, "pruned": [d for d in ("site-packages", "test", "idlelib", "tkinter", "ensurepip") if os.path.exists(os.path.join(lib, d))],',
        ' "sqlite": sqlite3.connect(":memory:").execute("select 6 * 7").fetchone()[0], "flags": [sys.flags.isolated, sys.flags.no_site]}',
      ].join('\n');
      const result = await backend.execute(pythonRequest(code));
      expect(result.value).toMatchObject({ prefix: '/usr/local', pruned: [], sqlite: 42, flags: [1, 1] });
    } finally {
      await backend.close();
    }
  });

  it('fails with RUNTIME_UNAVAILABLE pointing at sandbox:image when the python image is missing', async () => {
    const backend = createDockerBackend({ pythonImage: 'toolexec-sandbox:python-0.0.0-missing' });
    try {
      const error = await failure(backend.execute(pythonRequest('1')));
      expect(error.code).toBe('RUNTIME_UNAVAILABLE');
      expect(error.message).toContain('sandbox:image');
    } finally {
      await backend.close();
    }
  });
});

describe.skipIf(skipDocker)('docker backend: python warm pool', () => {
  let pooled: DockerBackend;
  beforeAll(async () => {
    await ensurePythonImage();
    pooled = createDockerBackend({ pool: { size: 1 } });
  });
  afterAll(async () => {
    await pooled?.close();
    expect(await containersOf(pooled.id)).toEqual([]);
  });

  it('keeps started python containers with the prelude loaded, one per run, apart from the node pool', async () => {
    await pooled.warmUp({ languages: ['python'] });
    expect(pooled.poolStats('python')).toMatchObject({ size: 1, idle: 1, started: 1 });
    expect(pooled.poolStats('javascript')).toMatchObject({ idle: 0, started: 0 });
    const first = await pooled.execute(pythonRequest('import builtins\nbuiltins.leak = "first run"\n"set"'));
    expect(first.value).toBe('set');
    expect(first.backend.details).toMatchObject({ pooled: true, language: 'python' });
    // the refill runs after the run; the next run gets a fresh container: nothing of the first is there
    await pooled.warmUp({ languages: ['python'] });
    const second = await pooled.execute(pythonRequest('import builtins\ngetattr(builtins, "leak", None) is None'));
    expect(second.value).toBe(true);
    expect(second.backend.details).toMatchObject({ pooled: true });
    expect(second.backend.details?.container).not.toBe(first.backend.details?.container);
    // a run with other limits starts its own container
    const own = await pooled.execute(pythonRequest('1', { limits: { memoryBytes: 64 * 1024 * 1024 } }));
    expect(own.backend.details).toMatchObject({ pooled: false });
  });

  it('warm() (what Runtime.warm calls) fills the pool of every language it runs', async () => {
    await pooled.warm();
    expect(pooled.poolStats('python')).toMatchObject({ idle: 1 });
    expect(pooled.poolStats('javascript')).toMatchObject({ idle: 1 });
    const js = await pooled.execute({ ...pythonRequest('return 6 * 7'), language: 'javascript' });
    expect(js).toMatchObject({ value: 42, backend: { details: { pooled: true } } });
  });
});

describe.skipIf(skipDocker)('docker backend', () => {
  pythonSuite({ kind: 'docker', create: () => createDockerBackend() });
});

describe.skipIf(skipGvisor)('gvisor backend', () => {
  pythonSuite({ kind: 'gvisor', create: () => createGvisorBackend() });
});
