/**
 * Hostile Python on the docker and gvisor backends: the network (a listener on the host, reached
 * through 127.0.0.1, the docker bridge and the host's own addresses), the host's files and
 * environment, processes (a fork bomb, a shell) and the host staying alive.
 */
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerSandboxBackend } from '../../../../src/runtime/backends/docker/index.js';
import { createDockerBackend, createGvisorBackend } from '../../../../src/runtime/index.js';
import { containersOf, docker, skipDocker, skipGvisor } from './engine.js';
import { failure } from './isolation.js';
import { PYTHON_FILES_PROBE, ensurePythonImage, pythonNetworkProbe, pythonRequest } from './python-engine.js';

/** What the root of a container of the Python image may hold: the image's own directories and what the engine adds. */
const IMAGE_ROOT = new Set(['.dockerenv', 'dev', 'etc', 'lib', 'lib64', 'proc', 'root', 'sys', 'tmp', 'usr']);

/** Forks until refused (32 tasks at most in the container); each child sleeps. */
const FORK_BOMB = `
import os, time
forked, refused = 0, None
for _ in range(200):
    try:
        pid = os.fork()
    except OSError as e:
        refused = e.errno
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    forked += 1
{"forked": forked, "refused": refused}`;

/** A shell and a child process: the image has no shell; the interpreter itself can be started (under the pids cap). */
const PROCESSES = `
import os, subprocess, sys
try:
    shell = subprocess.run(["/bin/sh", "-c", "id"], capture_output=True).returncode
except OSError as e:
    shell = type(e).__name__
child = subprocess.run([sys.executable, "-I", "-S", "-c", "import os; print(os.getuid())"], capture_output=True, text=True)
{"system": os.system("id"), "shell": shell, "child": child.stdout.strip()}`;

function hostileSuite(kind: 'docker' | 'gvisor', create: () => ContainerSandboxBackend): void {
  describe(`${kind}: hostile python`, () => {
    let backend: ContainerSandboxBackend;
    let server: Server;
    let connections = 0;
    const marker = join(tmpdir(), `toolexec-host-marker-${randomBytes(4).toString('hex')}`);

    beforeAll(async () => {
      await ensurePythonImage();
      backend = create();
      server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
      await writeFile(marker, 'host secret');
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(marker, { force: true });
      await backend?.close();
      if (backend !== undefined) expect(await containersOf(backend.id)).toEqual([]);
    });

    it('reaches no listener: not the host 127.0.0.1, the docker bridge or the host addresses; no DNS', async () => {
      const port = (server.address() as { port: number }).port;
      const bridge = (await docker.getNetwork('bridge').inspect()) as { IPAM?: { Config?: { Gateway?: string }[] } };
      const gateways = (bridge.IPAM?.Config ?? []).map((config) => config.Gateway).filter((ip): ip is string => ip !== undefined);
      const hostAddresses = Object.values(networkInterfaces())
        .flat()
        .filter((address) => address !== undefined && address.family === 'IPv4' && !address.internal)
        .map((address) => address?.address as string);
      const hosts = [...new Set(['127.0.0.1', ...gateways, ...hostAddresses])];
      expect(hosts.length).toBeGreaterThan(1);
      const result = await backend.execute(pythonRequest(pythonNetworkProbe(port, hosts)));
      const value = result.value as { results: Record<string, string>; dns: string; interfaces: string[] };
      for (const host of hosts) expect(value.results[host], host).not.toBe('connected');
      expect(value.dns).not.toBe('resolved');
      expect(value.interfaces).toEqual(['lo']);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(connections, 'connections that reached the host listener').toBe(0);
    });

    it("sees only the image's files, writes only /tmp, and gets none of the host's environment", async () => {
      process.env.TOOLEXEC_HOST_SECRET = 'host-secret-value';
      try {
        const result = await backend.execute(pythonRequest(PYTHON_FILES_PROBE));
        const value = result.value as {
          root: string[];
          writable: string[];
          env: Record<string, string>;
          cwd: string;
          uid: number;
          probed: number;
        };
        for (const entry of value.root) expect(IMAGE_ROOT.has(entry), entry).toBe(true);
        expect(value.writable).toEqual(['/tmp']);
        expect(value.probed).toBeGreaterThan(10);
        expect(value.cwd).toBe('/tmp');
        expect(value.uid).toBe(65534);
        expect(Object.keys(value.env).sort()).toEqual(expect.arrayContaining(['HOME', 'PATH']));
        for (const key of Object.keys(value.env)) expect(['HOME', 'PATH', 'HOSTNAME'], key).toContain(key);
        expect(JSON.stringify(value.env)).not.toContain('host-secret-value');
        const host = await backend.execute(
          pythonRequest(`import os\n[os.path.exists(${JSON.stringify(marker)}), os.path.exists(${JSON.stringify(process.cwd())})]`),
        );
        expect(host.value).toEqual([false, false]);
      } finally {
        delete process.env.TOOLEXEC_HOST_SECRET;
      }
    });

    it('has no shell; a child interpreter runs as nobody, inside the container', async () => {
      const result = await backend.execute(pythonRequest(PROCESSES));
      const value = result.value as { system: number; shell: number | string; child: string };
      expect(value.system).not.toBe(0);
      expect(value.shell).toBe('FileNotFoundError');
      expect(value.child).toBe('65534');
    });

    it('contains a fork bomb with the pids limit; the backend runs on afterwards', async () => {
      const outcome = await backend.execute(pythonRequest(FORK_BOMB, { timeoutMs: 20_000, limits: { pidsMax: 32 } })).then(
        (result) => ({ value: result.value as { forked: number; refused: number | null }, code: undefined }),
        (error: Error & { code?: string }) => ({ value: undefined, code: error.code }),
      );
      if (kind === 'docker') {
        // runc: the cgroup refuses the fork inside the container (EAGAIN)
        expect(outcome.value?.refused).toBe(11);
        expect(outcome.value?.forked).toBeLessThan(32);
      } else {
        // gVisor: the cap counts the sandbox's own threads; the fork is refused or the sandbox ends,
        // as a failed snippet or, when the forked interpreters reach the memory cap first, a
        // RESOURCE_LIMIT (seen once in CI)
        if (outcome.value !== undefined) expect(outcome.value.refused).toBe(11);
        else expect(['CODE_EXECUTION', 'RESOURCE_LIMIT']).toContain(outcome.code);
      }
      await expect(backend.execute(pythonRequest('6 * 7'))).resolves.toMatchObject({ value: 42 });
    });

    it('runs a snippet that exits or kills its own interpreter as a failed run, not a dead backend', async () => {
      const exited = await failure(backend.execute(pythonRequest('import os\nos._exit(3)')));
      expect(exited.code, exited.message).toBe('CODE_EXECUTION');
      expect(exited.message).toContain('exited with code 3');
      await expect(backend.execute(pythonRequest('"alive"'))).resolves.toMatchObject({ value: 'alive' });
    });
  });
}

describe.skipIf(skipDocker)('docker backend', () => {
  hostileSuite('docker', () => createDockerBackend());
});

describe.skipIf(skipGvisor)('gvisor backend', () => {
  hostileSuite('gvisor', () => createGvisorBackend());
});
