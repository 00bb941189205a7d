/**
 * Hostile Python: every escape issue 20 lists (each of which reached the host from a worker thread)
 * must be contained by the Pyodide backend's child process (permission model + bubblewrap): no file
 * written, no host file or environment read, no connection to a listener on 127.0.0.1, limits
 * reported as on the other backends, the host alive after each, and no process left after close.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createDirectGateway, type ExecuteResult } from '../../../../src/runtime/index.js';
import { createPythonBackend, type PythonBackend } from '../../../../src/runtime/backends/python/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';

const SECRET = `hostile-secret-${process.pid}-${Date.now()}`;
type Failure = Error & { code?: string; details?: Record<string, unknown> };

describe('hostile Python on the Pyodide backend', { timeout: 60_000 }, () => {
  let backend: PythonBackend;
  let dir: string;
  let marker: string;
  let secretFile: string;
  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolexec-hostile-py-'));
    marker = join(dir, 'written-by-snippet');
    secretFile = join(dir, 'secret.txt');
    writeFileSync(secretFile, SECRET);
    process.env.TOOLEXEC_HOSTILE_SECRET = SECRET;
    server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    backend = createPythonBackend({ poolSize: 1 });
    await backend.warm();
  }, 120_000);

  afterAll(async () => {
    delete process.env.TOOLEXEC_HOSTILE_SECRET;
    await backend?.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `code`; returns everything it produced (value, output, error) as text. */
  async function attempt(code: string, limits = {}): Promise<{ text: string; error?: Failure; result?: ExecuteResult }> {
    const source = code
      .replaceAll('MARKER', JSON.stringify(marker))
      .replaceAll('SECRET_FILE', JSON.stringify(secretFile))
      .replaceAll('PORT', String(port));
    try {
      const result = await backend.execute({
        language: 'python',
        code: source,
        gateway: createDirectGateway(createContractFixture()),
        timeoutMs: 5_000,
        limits,
      });
      return { text: JSON.stringify([result.value, result.stdout, result.stderr]), result };
    } catch (err) {
      const error = err as Failure;
      return { text: JSON.stringify([error.message, error.details ?? null]), error };
    }
  }

  async function expectContained(code: string): Promise<string> {
    const { text } = await attempt(code);
    if (process.env.TOOLEXEC_HOSTILE_DEBUG) console.log(code.slice(0, 60), '=>', text.slice(0, 300));
    expect(existsSync(marker), `the snippet wrote ${marker}`).toBe(false);
    expect(text).not.toContain(SECRET);
    expect(connections).toBe(0);
    // the host is alive and the backend still serves runs
    expect(
      (await backend.execute({ language: 'python', code: '1 + 1', gateway: createDirectGateway(createContractFixture()) })).value,
    ).toBe(2);
    return text;
  }

  const escapes: [string, string][] = [
    [
      'import js',
      "import js\nout = {}\nfor name in ['process', 'require', 'globalThis', 'Function', 'fetch', 'Deno', 'Bun']:\n    try:\n        out[name] = repr(getattr(js, name))\n    except BaseException as e:\n        out[name] = type(e).__name__\nout",
    ],
    [
      'pyodide.code.run_js',
      'import json\nfrom pyodide.code import run_js\nrun_js("require(\'fs\').writeFileSync(" + json.dumps(MARKER) + ", \'x\'); process.env.TOOLEXEC_HOSTILE_SECRET")',
    ],
    [
      'run_js reading a host file',
      'import json\nfrom pyodide.code import run_js\nrun_js("require(\'fs\').readFileSync(" + json.dumps(SECRET_FILE) + ", \'utf8\')")',
    ],
    [
      "a proxy's .constructor.constructor",
      "from pyodide.ffi import to_js\nF = to_js({}).constructor.constructor\nF(\"return process\")().mainModule.require('fs').writeFileSync(MARKER, 'x')",
    ],
    [
      'the constructor escape through the Pyodide API object',
      'import pyodide_js\nF = pyodide_js.constructor.constructor\nF("return globalThis.process.env.TOOLEXEC_HOSTILE_SECRET")()',
    ],
    [
      'pyodide_js.mountNodeFS',
      `import pyodide_js, os\nhost = os.path.dirname(SECRET_FILE)\nos.makedirs('/mnt/host', exist_ok=True)\npyodide_js.mountNodeFS('/mnt/host', host)\nprint(open('/mnt/host/secret.txt').read())\nopen('/mnt/host/' + os.path.basename(MARKER), 'w').write('x')`,
    ],
    [
      'the Emscripten FS behind the API object',
      "import pyodide_js\nFS = pyodide_js.FS\nFS.mkdir('/h')\nFS.mount(FS.filesystems.NODEFS, {'root': '/'}, '/h')\nopen('/h' + SECRET_FILE).read()",
    ],
    ['os.system', "import os\nos.system('touch ' + MARKER)"],
    ['subprocess', "import subprocess\nsubprocess.run(['touch', MARKER])"],
    ['ctypes', "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.system(('touch ' + MARKER).encode())"],
    [
      'open() of host files',
      "out = []\nfor path in ['/etc/passwd', '/etc/shadow', SECRET_FILE, '/proc/1/environ', '/root/.bashrc']:\n    try:\n        out.append(open(path).read()[:200])\n    except BaseException as e:\n        out.append(type(e).__name__)\nout",
    ],
    ['writing a host path', "open(MARKER, 'w').write('x')\nimport os\nos.listdir(os.path.dirname(MARKER))"],
    ['os.environ', 'import os\ndict(os.environ)'],
    [
      'reading the channel to the host through stdin',
      "import sys, os\nout = [sys.stdin.read()]\ntry:\n    out.append(input())\nexcept EOFError:\n    out.append('EOF')\ntry:\n    out.append(os.read(0, 100))\nexcept OSError as e:\n    out.append(type(e).__name__)\nout",
    ],
    ['a socket to 127.0.0.1', "import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect(('127.0.0.1', PORT))\ns.send(b'hello')"],
    [
      'fetch through the API object',
      "import pyodide_js\nfrom pyodide.ffi import run_sync\npyodide_js.loadPackage('http://127.0.0.1:PORT/x.whl')",
    ],
  ];

  for (const [name, code] of escapes) {
    it(`contains ${name}`, async () => {
      await expectContained(code);
    });
  }

  it('runs the child without capabilities, in its own PID namespace', async () => {
    const own = createPythonBackend({ poolSize: 1 });
    onTestFinished(() => own.close());
    await own.warm();
    const [leader] = own.childPids;
    const node = processes().find((pid) => descendsFrom(pid, [leader as number]) && cmdlineOf(pid).includes('python-child.mjs'));
    expect(node).toBeDefined();
    const status = readFileSync(`/proc/${node}/status`, 'utf8');
    expect(status).toMatch(/CapEff:\s+0+\n/);
    expect(status).toMatch(/CapBnd:\s+0+\n/);
    // NSpid lists the pid in each namespace: a second entry means its own PID namespace
    expect(status).toMatch(/NSpid:\s+\d+\s+\d+/);
    expect(readFileSync(`/proc/${node}/cmdline`, 'utf8')).toContain('--disallow-code-generation-from-strings');
    await own.close();
  });

  it('gives the snippet no host environment', async () => {
    const text = await expectContained('import os\nsorted(os.environ)');
    expect(text).not.toContain('TOOLEXEC_HOSTILE_SECRET');
    expect(text).not.toContain(process.env.PATH ?? '/usr/local/sbin');
  });

  it('shows the snippet a fixed environment and no host path (environ, argv, executable, cwd, path, Pyodide config)', async () => {
    const probe = [
      'import os, sys, pyodide_js',
      "main = sys.modules['__main__']",
      "{'environ': dict(os.environ), 'argv': sys.argv, 'orig_argv': sys.orig_argv, 'executable': sys.executable,",
      " 'file': getattr(main, '__file__', None), 'cwd': os.getcwd(), 'path': sys.path, 'prefix': sys.prefix,",
      " 'indexURL': pyodide_js._api.config.indexURL, 'env': dict(pyodide_js._api.config.env.object_entries())}",
    ].join('\n');
    const { result, text } = await attempt(probe);
    const seen = result?.value as Record<string, unknown>;
    expect(seen.environ).toEqual({
      HOME: '/home/pyodide',
      PATH: '/',
      PWD: '/',
      LANG: 'C.UTF-8',
      USER: 'web_user',
      LOGNAME: 'web_user',
      // Pyodide's own
      PYTHONINSPECT: '1',
      LD_LIBRARY_PATH: '/usr/lib:/lib/python3.14/site-packages',
    });
    expect(seen).toMatchObject({ argv: [''], orig_argv: ['/bin/python3'], executable: '/bin/python3', file: null, cwd: '/home/pyodide' });
    expect(seen.indexURL).toBe('/toolexec/pyodide/');
    const hostPaths = [process.cwd(), process.execPath, tmpdir(), dir, 'node_modules', 'dist/assets', 'toolexec-pyodide-'];
    for (const path of hostPaths) expect(text, `the snippet saw ${path}`).not.toContain(path);
    // a variable a run sets is gone for the next run on the same child
    await attempt("import os\nos.environ['TOOLEXEC_LEFT'] = '1'");
    expect((await attempt("import os\n'TOOLEXEC_LEFT' in os.environ")).result?.value).toBe(false);
  });

  it('stops a memory bomb at the memory cap (RESOURCE_LIMIT memory)', async () => {
    const { error } = await attempt('chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))', {
      memoryBytes: 256 * 1024 * 1024,
    });
    expect(error?.code, error?.message).toBe('RESOURCE_LIMIT');
    expect(error?.details?.limit).toBe('memory');
    await expectContained('1');
  });

  it('stops while True (TIMEOUT) and huge output (RESOURCE_LIMIT output)', async () => {
    const loop = await backend
      .execute({ language: 'python', code: 'while True:\n    pass', gateway: createDirectGateway(createContractFixture()), timeoutMs: 300 })
      .catch((err: Failure) => err);
    expect((loop as Failure).code).toBe('TIMEOUT');
    const { error } = await attempt("while True:\n    print('x' * 100000)", { maxOutputBytes: 100_000 });
    expect(error?.code).toBe('RESOURCE_LIMIT');
    expect(error?.details?.limit).toBe('output');
    await expectContained('1');
  });

  it('stops tool calls past the budget (LIMIT_EXCEEDED)', async () => {
    const { error } = await attempt(
      "while True:\n    try:\n        tools.run_tool('test:add', {'a': 1, 'b': 2})\n    except Exception:\n        pass",
      { maxToolCalls: 3 },
    );
    // the snippet swallows the budget error and loops: its deadline ends it, and the budget error wins
    expect(['LIMIT_EXCEEDED', 'TIMEOUT']).toContain(error?.code);
    expect((error?.details?.result as ExecuteResult).toolCalls).toHaveLength(3);
    const stopped = await attempt("for i in range(10):\n    tools.run_tool('test:add', {'a': i, 'b': 2})", { maxToolCalls: 3 });
    expect(stopped.error?.code).toBe('LIMIT_EXCEEDED');
  });

  it('leaves no process behind after close()', async () => {
    const own = createPythonBackend({ poolSize: 2 });
    onTestFinished(() => own.close());
    await own.warm();
    await own.execute({ language: 'python', code: '1', gateway: createDirectGateway(createContractFixture()) });
    const leaders = own.childPids;
    expect(leaders).toHaveLength(2);
    // bubblewrap and the node it runs (with the child bundle) under each
    const tree = processes().filter((pid) => leaders.includes(pid) || descendsFrom(pid, leaders));
    expect(tree.some((pid) => cmdlineOf(pid).includes('python-child.mjs'))).toBe(true);
    for (const pid of tree) expect(alive(pid)).toBe(true);
    await own.close();
    for (const pid of tree) expect(alive(pid), `process ${pid} (${cmdlineOf(pid).slice(0, 80)}) outlived close()`).toBe(false);
  });
});

function processes(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function descendsFrom(pid: number, ancestors: number[]): boolean {
  let current = pid;
  for (let i = 0; i < 64; i += 1) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${current}/stat`, 'utf8');
    } catch {
      return false;
    }
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ancestors.includes(parent)) return true;
    if (parent <= 1) return false;
    current = parent;
  }
  return false;
}
