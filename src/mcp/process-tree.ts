import { spawn } from 'node:child_process';

const isWindows = process.platform === 'win32';

/**
 * Sends `signal` to every process in the group led by `pid` (POSIX), or ends the tree rooted at
 * `pid` (Windows, `taskkill /T`). Missing processes are not an error.
 */
export function signalProcessTree(pid: number, signal: NodeJS.Signals): void {
  if (isWindows) {
    // No process groups: taskkill walks the tree. /F only for the hard kill.
    const args = ['/pid', String(pid), '/T'];
    if (signal === 'SIGKILL') args.push('/F');
    try {
      const killer = spawn('taskkill', args, { stdio: 'ignore', windowsHide: true });
      killer.on('error', () => undefined);
    } catch {
      // taskkill unavailable: fall back to the process itself.
      tryKill(pid, signal);
    }
    return;
  }
  tryKill(-pid, signal);
}

function tryKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone. EPERM: not ours to signal.
  }
}

// Groups still alive when the host process exits are killed on the way out, so a forgotten
// close() (or a crash of the host) does not leave servers behind.
const liveGroups = new Set<number>();

function killLiveGroups(): void {
  for (const pid of liveGroups) signalProcessTree(pid, 'SIGKILL');
  liveGroups.clear();
}

/** Records a process tree to kill if the host process exits first. */
export function trackProcessTree(pid: number): void {
  if (liveGroups.size === 0) process.on('exit', killLiveGroups);
  liveGroups.add(pid);
}

/** Forgets a process tree recorded by {@link trackProcessTree}. */
export function untrackProcessTree(pid: number): void {
  if (!liveGroups.delete(pid)) return;
  if (liveGroups.size === 0) process.off('exit', killLiveGroups);
}

/** Keeps the last `limitBytes` bytes of a stream (a server's stderr). */
export class TailBuffer {
  readonly #limitBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  append(chunk: Buffer): void {
    if (this.#limitBytes <= 0) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size > this.#limitBytes) {
      const first = this.#chunks[0]!;
      const excess = this.#size - this.#limitBytes;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#size -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
      }
    }
  }

  /** The kept text, trimmed; a character cut in half at the start is dropped. */
  text(): string {
    return Buffer.concat(this.#chunks)
      .toString('utf8')
      .replace(/^\uFFFD+/, '')
      .trim();
  }
}
