/**
 * What every Pyodide child of one backend shares: the Pyodide package's directory, the child's
 * bundle, the prelude, a private folder (the memory snapshot and the copies of Pyodide's module
 * with their memory capped) and the sandbox's command line. Prepared once, on first use; the
 * folder is removed by {@link PythonEnvironment.close}.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { missingPeerMessage } from '../../../model/internal.js';
import { runtimeError } from '../../core/errors.js';
import { settlesWithin } from '../../core/stopping.js';
import { assetPath } from '../../guest/assets.js';
import { pythonPreludePath } from '../../guest/python/source.js';
import type { PythonChildConfig } from '../../guest/python/messages.js';
import { capModuleMemory } from '../wasm/wasi-module.js';
import type { ResolvedPythonOptions } from './options.js';
import {
  bubblewrapArgs,
  inSandboxWorkDir,
  nodeFlags,
  noSandboxError,
  probeBubblewrap,
  SANDBOX_VIEW,
  type ChildCommand,
  type SandboxPaths,
} from './sandbox.js';

/** The child's bundle in `dist/assets/`. */
export const PYTHON_CHILD_ASSET = 'python-child.mjs';

/** The V8 heap of a child: Pyodide keeps its data in linear memory, not on the JS heap. */
const CHILD_HEAP_MIB = 192;

function pyodideDirectory(configured: string | undefined): string {
  if (configured !== undefined) return realpathSync(configured);
  try {
    const require = createRequire(import.meta.url);
    return realpathSync(dirname(require.resolve('pyodide/package.json')));
  } catch (err) {
    throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${missingPeerMessage('Python snippets', 'pyodide')}`, {
      cause: err,
      details: { language: 'python', missing: 'pyodide' },
    });
  }
}

/** The shared parts of a backend's children. */
export class PythonEnvironment {
  readonly paths: SandboxPaths;
  readonly #bwrap: string[];
  readonly #bwrapPath: string;
  /** The snapshot children start from; absent when making it failed or was turned off (cold starts). */
  #snapshotPath: string | undefined;
  readonly #capped = new Map<number, string>();
  #closed = false;
  /** Removes the private folder if the process exits without `close()`. */
  readonly #onExit = () => rmSync(this.paths.workDir, { recursive: true, force: true });

  private constructor(paths: SandboxPaths, bwrapPath: string) {
    this.paths = paths;
    this.#bwrapPath = bwrapPath;
    this.#bwrap = bubblewrapArgs(paths);
    process.once('exit', this.#onExit);
  }

  /** How children start: `snapshot` or `cold`. */
  get startMode(): 'snapshot' | 'cold' {
    return this.#snapshotPath === undefined ? 'cold' : 'snapshot';
  }

  /**
   * Finds Pyodide and the child's bundle, checks that bubblewrap works (once per process), makes
   * the private folder and, when `options.snapshot`, the memory snapshot (a failure falls back to
   * cold starts).
   * @throws `RUNTIME_UNAVAILABLE` naming what is missing (pyodide, the build, bubblewrap).
   */
  static async prepare(options: ResolvedPythonOptions): Promise<PythonEnvironment> {
    const pyodideDir = pyodideDirectory(options.pyodideDir);
    const childPath = assetPath(PYTHON_CHILD_ASSET);
    const workDir = realpathSync(mkdtempSync(join(tmpdir(), 'toolexec-pyodide-')));
    const paths: SandboxPaths = { pyodideDir, childPath: realpathSync(childPath), preludePath: realpathSync(pythonPreludePath()), workDir };
    try {
      const probe = await probeBubblewrap(options.bubblewrapPath, paths);
      if (!probe.ok) throw noSandboxError(probe);
      const environment = new PythonEnvironment(paths, options.bubblewrapPath);
      try {
        if (options.snapshot) await environment.#makeSnapshot(options);
      } catch (err) {
        environment.close();
        throw err;
      }
      return environment;
    } catch (err) {
      rmSync(workDir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * The command line of a child whose linear memory is capped at `memoryBytes`. Every path the
   * child is given is the sandbox's ({@link SANDBOX_VIEW}), never the host's.
   */
  command(memoryBytes: number, extra: Partial<PythonChildConfig> = {}): ChildCommand {
    const config: PythonChildConfig = {
      pyodideDir: SANDBOX_VIEW.pyodideDir,
      preludePath: SANDBOX_VIEW.preludePath,
      wasmPath: inSandboxWorkDir(this.#cappedModule(memoryBytes)),
      ...(this.#snapshotPath === undefined ? {} : { snapshotPath: inSandboxWorkDir(this.#snapshotPath) }),
      ...extra,
    };
    const node = realpathSync(process.execPath);
    return {
      command: this.#bwrapPath,
      args: [...this.#bwrap, node, ...nodeFlags(CHILD_HEAP_MIB), SANDBOX_VIEW.childPath, JSON.stringify(config)],
    };
  }

  /** Removes the private folder. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    process.off('exit', this.#onExit);
    rmSync(this.paths.workDir, { recursive: true, force: true });
  }

  /** A copy of Pyodide's module whose linear memory cannot grow past `memoryBytes` (written once per cap). */
  #cappedModule(memoryBytes: number): string {
    let path = this.#capped.get(memoryBytes);
    if (path === undefined) {
      const capped = capModuleMemory(readFileSync(join(this.paths.pyodideDir, 'pyodide.asm.wasm')), memoryBytes);
      path = join(this.paths.workDir, `pyodide-${capped.capPages}.wasm`);
      writeFileSync(path, capped.bytes);
      this.#capped.set(memoryBytes, path);
    }
    return path;
  }

  /** Runs a child that loads Pyodide cold and writes its memory snapshot; keeps cold starts when that fails. */
  async #makeSnapshot(options: ResolvedPythonOptions): Promise<void> {
    const { command, args } = this.command(options.defaultMemoryBytes, { makeSnapshot: true });
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'], detached: true, env: {} });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const exited = new Promise<number | null>((resolve) => {
      child.once('error', () => resolve(-1));
      child.once('close', (code) => resolve(code));
    });
    if (!(await settlesWithin(exited, options.startupTimeoutMs))) {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // gone
      }
      return;
    }
    const bytes = Buffer.concat(chunks);
    if ((await exited) !== 0 || bytes.length === 0) return;
    const path = join(this.paths.workDir, 'snapshot.bin');
    writeFileSync(path, bytes);
    this.#snapshotPath = path;
  }
}
