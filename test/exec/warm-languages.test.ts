import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createExec } from '../../src/exec/index.js';
import { ToolexecError, hasErrorCode } from '../../src/model/index.js';
import type { ExecuteRequest, ExecuteResult, Runtime } from '../../src/runtime/index.js';

/** A runtime the app injects, which records what `connect()` asks it to warm; `warm` settles as `settle` says. */
class RecordingRuntime implements Runtime {
  readonly warmed: (readonly string[] | undefined)[] = [];
  constructor(private readonly settle: (languages: readonly string[] | undefined) => Promise<void> = () => Promise.resolve()) {}

  execute(request: ExecuteRequest): Promise<ExecuteResult> {
    return Promise.resolve({ value: request.language, stdout: '', stderr: '', toolCalls: [], durationMs: 0 } as unknown as ExecuteResult);
  }

  warm(options?: { languages?: readonly string[] }): Promise<void> {
    this.warmed.push(options?.languages);
    return this.settle(options?.languages);
  }
}

/** The command lines of this process's descendants (from /proc). */
function descendantCommands(): string[] {
  const children = new Map<number, number[]>();
  const commands = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      commands.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      // the process ended meanwhile
    }
  }
  const out: string[] = [];
  const queue = [...(children.get(process.pid) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    out.push(commands.get(pid) ?? '');
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

const pythonChildren = (): number => descendantCommands().filter((command) => command.includes('python-child')).length;

describe('the default runtime (real Pyodide children)', () => {
  it('a facade not set up for Python starts no Python process, on connect() or for a JavaScript snippet', async () => {
    const exec = createExec({});
    await exec.connect();
    expect((await exec.executeCode({ code: 'return 1 + 1' })).value).toBe(2);
    expect(pythonChildren()).toBe(0);
    await exec.close();
  });

  it('warmLanguages: python starts the Python pool on connect(), before any snippet; close() ends it', async () => {
    const exec = createExec({ warmLanguages: ['python'] });
    await exec.connect();
    expect(pythonChildren()).toBeGreaterThan(0);
    expect((await exec.executeCode({ code: '6 * 7', language: 'python' })).value).toBe(42);
    await exec.close();
    expect(pythonChildren()).toBe(0);
  }, 120_000);
});

describe('exec.connect() warms the sandboxes of the languages the facade is set up for', () => {
  it('warms Python when it is the default language, and only then', async () => {
    const python = new RecordingRuntime();
    const exec = createExec({ runtime: python, defaultLanguage: 'python' });
    expect(await exec.connect()).toEqual({});
    expect(python.warmed).toEqual([['python']]);
    await exec.close();

    for (const options of [{}, { defaultLanguage: 'typescript' }, { warmLanguages: [] }]) {
      const other = new RecordingRuntime();
      const plain = createExec({ runtime: other, ...options });
      await plain.connect();
      await plain.executeCode({ code: '1', language: 'python' }); // a Python snippet still runs (its pool starts on first use)
      expect(other.warmed).toEqual([]);
      await plain.close();
    }
  });

  it('warms what warmLanguages names (py read as python), whatever the default language', async () => {
    const runtime = new RecordingRuntime();
    const exec = createExec({ runtime, warmLanguages: ['py', 'Python', 'javascript'] });
    await exec.connect();
    expect(runtime.warmed).toEqual([['python', 'javascript']]);
    const none = new RecordingRuntime();
    const explicit = createExec({ runtime: none, defaultLanguage: 'python', warmLanguages: [] });
    await explicit.connect();
    expect(none.warmed).toEqual([]);
    await Promise.all([exec.close(), explicit.close()]);
  });

  it('rejects with the runtime error when the sandbox cannot start', async () => {
    const missing = new ToolexecError('RUNTIME_UNAVAILABLE', 'runtime unavailable: python needs bubblewrap (apt-get install bubblewrap)');
    const exec = createExec({ runtime: new RecordingRuntime(() => Promise.reject(missing)), defaultLanguage: 'python' });
    await expect(exec.connect()).rejects.toBe(missing);
    await exec.close();
  });

  it('waits within connect() bounds: the timeout ends the wait, the signal rejects with ABORTED', async () => {
    let finish = (): void => undefined;
    const slow = new RecordingRuntime(() => new Promise<void>((resolve) => (finish = resolve)));
    const exec = createExec({ runtime: slow, defaultLanguage: 'python' });
    const startedMs = performance.now();
    expect(await exec.connect({ timeoutMs: 50 })).toEqual({});
    expect(performance.now() - startedMs).toBeLessThan(5_000);
    const controller = new AbortController();
    const aborted = exec.connect({ signal: controller.signal });
    controller.abort(new Error('user left'));
    const err = await aborted.catch((e: unknown) => e);
    expect(hasErrorCode(err, 'ABORTED')).toBe(true);
    expect((err as Error).message).toContain('connect() waiting for the sandboxes');
    finish();
    await exec.close();
  });

  it('ignores a runtime without warm, and refuses a bad warmLanguages with CONFIGURATION', async () => {
    const runtime: Runtime = { execute: () => Promise.reject(new Error('not used')) };
    const exec = createExec({ runtime, defaultLanguage: 'python' });
    expect(await exec.connect()).toEqual({});
    await exec.close();
    for (const warmLanguages of ['python', [''], [3]]) {
      let err: unknown;
      try {
        createExec({ warmLanguages: warmLanguages as string[] });
      } catch (e) {
        err = e;
      }
      expect(hasErrorCode(err, 'CONFIGURATION')).toBe(true);
      expect((err as Error).message).toContain('warmLanguages');
    }
  });
});
