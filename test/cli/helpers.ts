import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { isProcessAlive, waitUntil } from '../mcp/helpers.js';

/** The repository. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The built command (`npm run build --silent` first). */
export const CLI = join(ROOT, 'dist', 'cli.js');

/** The command's sources (`src/cli/main.ts`), run through tsx: what a change to src/cli does before a build. */
export const SOURCE_CLI = join(ROOT, 'src', 'cli', 'main.ts');

/** tsx's loader by URL (a bare `--import tsx` resolves from the working directory, a workspace without node_modules). */
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** The stdio fixture server that records its pid (fixtures/recording-server.mjs). */
export const RECORDING_SERVER = fileURLToPath(new URL('./fixtures/recording-server.mjs', import.meta.url));

/** A fixture file of this folder. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** Fails clearly when the command was not built. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build --silent\` before the CLI tests`);
}

/** How a run of the command ended. */
export interface CliRun {
  /** The exit code (null when a signal ended it). */
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of one run. */
export interface RunOptions {
  /** Working directory (the workspace). */
  cwd: string;
  /** Written to stdin, which is then closed (stdin is closed at once without it). */
  input?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Killed (and the test failed) after this long. @defaultValue 25000 */
  timeoutMs?: number;
  /** Run {@link SOURCE_CLI} (through tsx) instead of the built {@link CLI}. @defaultValue `TOOLEXEC_CLI_FROM_SOURCE=1` in the environment */
  fromSource?: boolean;
  /** Leave stdin open (a reader that never ends, as `sleep 60 | toolexec ...`); `input` is still written. */
  keepStdinOpen?: boolean;
}

/** Starts `node dist/cli.js ...args` (or the sources, {@link RunOptions.fromSource}); `result` settles when it exits. */
export function startCli(args: readonly string[], options: RunOptions): { child: ChildProcess; result: Promise<CliRun> } {
  const fromSource = options.fromSource ?? process.env.TOOLEXEC_CLI_FROM_SOURCE === '1';
  const entry = fromSource ? ['--import', TSX_LOADER, SOURCE_CLI] : [CLI];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  if (options.keepStdinOpen === true) {
    if (options.input !== undefined) child.stdin.write(options.input);
  } else child.stdin.end(options.input);
  const result = new Promise<CliRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`toolexec ${args.join(' ')} did not exit within ${options.timeoutMs ?? 25_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 25_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, result };
}

/** Runs `node dist/cli.js ...args` to its end. */
export function runCli(args: readonly string[], options: RunOptions): Promise<CliRun> {
  return startCli(args, options).result;
}

/** The lines of a stream's text, without the empty last one. */
export function linesOf(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/** Expects a failure reported the way the command promises: `code`, one line on stderr naming `errorCode`, no stack. */
export function expectFailure(run: CliRun, code: number, errorCode?: string): void {
  expect(run.code, run.stderr).toBe(code);
  const lines = linesOf(run.stderr).filter((line) => !line.startsWith('toolexec: warning:'));
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^toolexec: /);
  if (errorCode !== undefined) expect(lines[0]).toContain(`${errorCode}: `);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

/** Single-quotes `word` for sh. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** True when util-linux `script` (which runs a command in a pseudo-terminal) is installed. */
export function hasScript(): boolean {
  return spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
}

/**
 * Runs the command in a pseudo-terminal (`script -qec "..." /dev/null`): stdout and stderr are a
 * terminal. Returns everything the terminal showed, and the exit code (`script -e` passes it on).
 */
export function runInTerminal(
  args: readonly string[],
  options: { cwd: string; timeoutMs?: number },
): Promise<{ code: number | null; output: string }> {
  const entry = process.env.TOOLEXEC_CLI_FROM_SOURCE === '1' ? ['--import', TSX_LOADER, SOURCE_CLI] : [CLI];
  const command = [process.execPath, ...entry, ...args].map(shellQuote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`script did not exit\n${output}`));
    }, options.timeoutMs ?? 25_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A URL on 127.0.0.1 where nothing listens (a port that was free a moment ago). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/mcp`;
}

/** A temporary folder to run the command in, with a file where stdio servers record their pids. */
export class Workspace {
  readonly dir = mkdtempSync(join(tmpdir(), 'toolexec-cli-'));
  readonly pidFile = join(this.dir, 'server-pids.txt');

  /** Writes `name` in the workspace (objects as JSON); its path. */
  write(name: string, content: string | object): string {
    const path = join(this.dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path;
  }

  /** A stdio server config for the recording fixture server (`env` added: FIXTURE_FAIL_START makes it fail to start). */
  stdioServer(env: Record<string, string> = {}): { command: string; args: string[]; env: Record<string, string> } {
    return { command: process.execPath, args: [RECORDING_SERVER], env: { RECORD_PID_FILE: this.pidFile, ...env } };
  }

  /** Every pid the stdio servers recorded so far. */
  recordedPids(): number[] {
    if (!existsSync(this.pidFile)) return [];
    return linesOf(readFileSync(this.pidFile, 'utf8')).map(Number);
  }

  /** Expects every stdio server started so far to be gone (waiting briefly), then forgets them. */
  async expectNoServersLeft(): Promise<void> {
    const pids = this.recordedPids();
    await waitUntil(() => pids.every((pid) => !isProcessAlive(pid)), 5000);
    expect(pids.filter((pid) => isProcessAlive(pid))).toEqual([]);
    rmSync(this.pidFile, { force: true });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
