/**
 * How a Pyodide child is started: `node` under Node's permission model (file reads limited to
 * what it needs, no writes, no child processes, no workers, no addons), inside bubblewrap with no
 * network, its own PID namespace and a read-only view of only the node binary, its shared
 * libraries and, at fixed paths ({@link SANDBOX_VIEW}), the Pyodide package, the child's bundle,
 * the prelude and the snapshot folder. Probed once per process: where bubblewrap is missing or does
 * not work, Python is refused (`RUNTIME_UNAVAILABLE`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { runtimeError } from '../../core/errors.js';
import { settlesWithin } from '../../core/stopping.js';

/** The command and arguments that start one child. */
export interface ChildCommand {
  command: string;
  args: string[];
}

/** What the sandbox must let the child read. */
export interface SandboxPaths {
  /** The Pyodide package's directory. */
  pyodideDir: string;
  /** The child's bundle (`python-child.mjs`). */
  childPath: string;
  /** The Python prelude. */
  preludePath: string;
  /** The folder of the snapshot and the capped module copies. */
  workDir: string;
}

/**
 * Where the sandbox shows the files of {@link SandboxPaths}: the same paths on every host, so
 * nothing inside (the child's command line, Pyodide's `indexURL`, a JavaScript stack trace that
 * reaches a snippet) names a path of the host.
 */
export const SANDBOX_VIEW: Readonly<SandboxPaths> = Object.freeze({
  pyodideDir: '/toolexec/pyodide',
  childPath: '/toolexec/python-child.mjs',
  preludePath: '/toolexec/prelude.py',
  workDir: '/toolexec/work',
});

/** The sandbox's path of `hostPath`, a file the host wrote in the private folder. */
export function inSandboxWorkDir(hostPath: string): string {
  return join(SANDBOX_VIEW.workDir, basename(hostPath));
}

/** The Node flag that turns the permission model on (`--permission` from Node 22, experimental before). */
export function permissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

/** A folder and everything under it, for `--allow-fs-read`: Node 20's wildcard form, or the folder itself from Node 22. */
function folderPattern(path: string): string {
  return permissionFlag() === '--permission' ? path : `${path}/*`;
}

/** The node flags of a child: permission model, reads limited to the files it needs (as the sandbox shows them), a small JS heap. */
export function nodeFlags(heapMiB: number): string[] {
  const paths = SANDBOX_VIEW;
  return [
    permissionFlag(),
    // two folders (Pyodide's package, the private folder) and two files (the child, the prelude)
    `--allow-fs-read=${folderPattern(paths.pyodideDir)}`,
    `--allow-fs-read=${folderPattern(paths.workDir)}`,
    `--allow-fs-read=${paths.childPath}`,
    `--allow-fs-read=${paths.preludePath}`,
    // eval and new Function are not needed by Pyodide's runtime; run_js and the like fail on them
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${heapMiB}`,
    '--no-warnings',
  ];
}

/**
 * The paths a read-only view needs so that `path` resolves inside it: each symbolic link on the
 * way becomes a link, the file (or folder) itself a bind.
 */
function expose(path: string, binds: Map<string, string>, links: Map<string, string>, depth = 0): void {
  if (depth > 16) return;
  const parts = path.split('/').filter((part) => part !== '');
  let current = '';
  for (let i = 0; i < parts.length; i += 1) {
    current += `/${parts[i]}`;
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined) return;
    if (stat.isSymbolicLink()) {
      const target = readlinkSync(current);
      links.set(current, target);
      const resolved = isAbsolute(target) ? target : resolvePath(dirname(current), target);
      expose([resolved, ...parts.slice(i + 1)].join('/'), binds, links, depth + 1);
      return;
    }
  }
  binds.set(current, current);
}

/** The node binary's shared libraries and its ELF interpreter, as `ldd` names them. */
function nodeLibraries(node: string): string[] {
  const out = spawnSync('ldd', [node], { encoding: 'utf8', timeout: 10_000 });
  if (out.status !== 0) return [];
  const paths: string[] = [];
  for (const line of out.stdout.split('\n')) {
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line);
    if (match?.[1] !== undefined) paths.push(match[1]);
  }
  return paths;
}

/**
 * The bubblewrap arguments (everything before the command) for `paths` (real paths, without
 * symbolic links), each shown at its {@link SANDBOX_VIEW} path.
 */
export function bubblewrapArgs(paths: SandboxPaths): string[] {
  const node = realpathSync(process.execPath);
  const binds = new Map<string, string>();
  const links = new Map<string, string>();
  for (const path of [node, ...nodeLibraries(node), '/etc/ld.so.cache']) {
    if (existsSync(path)) expose(path, binds, links);
  }
  // --cap-drop: a host that runs as root would otherwise hand the sandbox every capability
  const args = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ];
  for (const path of binds.keys()) args.push('--ro-bind', path, path);
  for (const [path, target] of links) args.push('--symlink', target, path);
  for (const key of ['pyodideDir', 'childPath', 'preludePath', 'workDir'] as const) args.push('--ro-bind', paths[key], SANDBOX_VIEW[key]);
  args.push('--chdir', '/');
  return args;
}

/** Whether bubblewrap works here, and why not. */
export interface BubblewrapProbe {
  ok: boolean;
  /** Why not, for the `RUNTIME_UNAVAILABLE` message. */
  reason?: string;
}

const probes = new Map<string, Promise<BubblewrapProbe>>();

/**
 * Runs `node -e 0` inside the same sandbox once (per bubblewrap path): the answer is kept for the
 * life of the process.
 */
export function probeBubblewrap(bwrapPath: string, paths: SandboxPaths): Promise<BubblewrapProbe> {
  let probed = probes.get(bwrapPath);
  if (probed !== undefined) return probed;
  probed = (async (): Promise<BubblewrapProbe> => {
    if (!existsSync(bwrapPath)) return { ok: false, reason: `${bwrapPath} not found` };
    let args: string[];
    try {
      args = [...bubblewrapArgs(paths), realpathSync(process.execPath), '-e', '0'];
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
    const child = spawn(bwrapPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => {
      child.once('error', (err) => {
        stderr += err.message;
        resolve(-1);
      });
      child.once('exit', (code) => resolve(code));
    });
    if (!(await settlesWithin(exited, 15_000))) {
      child.kill('SIGKILL');
      return { ok: false, reason: 'bubblewrap did not answer within 15 s' };
    }
    const code = await exited;
    return code === 0 ? { ok: true } : { ok: false, reason: stderr.trim().slice(0, 500) || `bubblewrap exited with code ${code}` };
  })();
  probes.set(bwrapPath, probed);
  return probed;
}

/** The refusal of a Python run where no network boundary can be had. */
export function noSandboxError(probe: BubblewrapProbe): Error {
  return runtimeError(
    'RUNTIME_UNAVAILABLE',
    `runtime unavailable: Python snippets need bubblewrap for a network boundary (install the "bubblewrap" package, e.g. apt-get install bubblewrap): ${probe.reason ?? 'it does not work here'}`,
    { details: { language: 'python', missing: 'bubblewrap', reason: probe.reason } },
  );
}
