/**
 * One sandbox container: created, attached (stdin + multiplexed output over one hijacked
 * connection) and started, ready for {@link runGuestSession}; killed and removed exactly once.
 */
import { constants as osConstants } from 'node:os';
import { PassThrough, type Duplex, type Readable, type Writable } from 'node:stream';
import type Dockerode from 'dockerode';
import { ToolexecError } from '../../../model/index.js';
import { runtimeError } from '../../core/errors.js';
import { underSignal } from '../../core/stopping.js';
import type { GuestExit } from '../../guest/session.js';
import { dockerMessage, dockerStatus, engineUnavailable } from './docker-client.js';

/** A started container whose node guest waits for its program on stdin. */
export interface SandboxContainer {
  /** The container's name (unique per run). */
  readonly name: string;
  /** The container's id. */
  readonly id: string;
  /** The guest's stdin (the hijacked attach connection). */
  readonly stdin: Writable;
  /** The guest's stdout, demultiplexed. */
  readonly stdout: Readable;
  /** The guest's stderr, demultiplexed. */
  readonly stderr: Readable;
  /** Settles when the guest's process is gone (`SIGKILL` when {@link kill} ended it). */
  readonly exited: Promise<GuestExit>;
  /** False once the attach connection has ended (the process died or the container was removed). */
  readonly alive: boolean;
  /** True once {@link kill} or {@link dispose} was called. */
  readonly killed: boolean;
  /** Set when the engine stopped answering about this container (its connection broke). */
  readonly engineError: unknown;
  /** True once {@link sendProgram} has written the guest program. */
  readonly programSent: boolean;
  /** Writes the guest program (the loader's first stdin line) now, ahead of the run. Once. */
  sendProgram(source: string): void;
  /** Removes the container now (kills it first). Idempotent; never throws. */
  kill(): void;
  /** Whether the kernel's OOM killer ended the container (false when unknown). */
  oomKilled(): Promise<boolean>;
  /** Kills and removes the container and closes the connection. Idempotent; never rejects. */
  dispose(): Promise<void>;
}

/** What {@link startSandboxContainer} needs. */
export interface StartContainerOptions {
  /** Cancels the start (`ABORTED`); the half-made container is still removed. */
  signal?: AbortSignal;
  /** Receives cleanups that outlive an aborted start (awaited by the backend's `close()`). */
  track: (cleanup: Promise<void>) => void;
  /** Used in messages. @defaultValue 'docker' */
  label?: string;
}

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, number]) => [number, name]));

/** A container exit status as a process exit: 128 + n is signal n. */
export function exitFromStatus(status: number | null | undefined): GuestExit {
  if (typeof status !== 'number') return { code: null, signal: null };
  if (status > 128 && SIGNAL_NAMES.has(status - 128)) return { code: null, signal: SIGNAL_NAMES.get(status - 128) ?? null };
  return { code: status, signal: null };
}

/** Removes a container by name or id; a missing one counts as removed. */
export async function removeContainer(docker: Dockerode, nameOrId: string): Promise<void> {
  try {
    await docker.getContainer(nameOrId).remove({ force: true, v: true });
  } catch (err) {
    const status = dockerStatus(err);
    // 404: gone already; 409: removal already in progress
    if (status === 404 || status === 409) return;
    throw err;
  }
}

function startFailure(label: string, step: string, image: string, err: unknown): ToolexecError {
  if (ToolexecError.isInstance(err)) return err;
  if (step === 'create' && dockerStatus(err) === 404) {
    return runtimeError(
      'RUNTIME_UNAVAILABLE',
      `runtime unavailable: the ${label} sandbox image ${image} does not exist (build it with \`npm run sandbox:image\` or buildSandboxImage()): ${dockerMessage(err)}`,
      { cause: err, details: { image } },
    );
  }
  return engineUnavailable(`cannot ${step} the ${label} sandbox container`, err, { image, step });
}

/**
 * Creates, attaches and starts a container. On any failure or abort the container is removed
 * (after the engine call in flight has settled, so nothing is created behind the removal).
 *
 * @throws `RUNTIME_UNAVAILABLE` (engine errors, a missing image or runtime), `ABORTED`.
 */
export async function startSandboxContainer(
  docker: Dockerode,
  create: Dockerode.ContainerCreateOptions,
  options: StartContainerOptions,
): Promise<SandboxContainer> {
  const name = create.name as string;
  const label = options.label ?? 'docker';
  let step = 'create';
  let socket: Duplex | undefined;
  const steps = (async () => {
    const container = await docker.createContainer(create);
    step = 'attach';
    socket = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex;
    step = 'start';
    await container.start();
    return { container, socket };
  })();
  let started: { container: Dockerode.Container; socket: Duplex };
  try {
    started = await underSignal(options.signal, 'execution', () => steps);
  } catch (err) {
    // remove whatever exists once the call in flight has settled
    const cleanup = steps
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        socket?.destroy();
        return removeContainer(docker, name);
      })
      .catch(() => undefined);
    options.track(cleanup);
    // a stopped start (abort, start deadline, close) returns at once; a failed one once cleaned up
    if (!ToolexecError.isInstance(err) || (err.code !== 'ABORTED' && err.code !== 'TIMEOUT')) await cleanup;
    throw startFailure(label, step, create.Image ?? '', err);
  }
  return attachSandbox(docker, started.container, started.socket, name);
}

function attachSandbox(docker: Dockerode, container: Dockerode.Container, socket: Duplex, name: string): SandboxContainer {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  docker.modem.demuxStream(socket, stdout, stderr);
  let alive = true;
  let killed = false;
  let programSent = false;
  let engineError: unknown;
  let removal: Promise<void> | undefined;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => {
    resolveEnded = resolve;
  });
  const onEnd = () => {
    if (!alive) return;
    alive = false;
    stdout.end();
    stderr.end();
    resolveEnded();
  };
  socket.once('end', onEnd);
  socket.once('close', onEnd);
  socket.on('error', onEnd);
  // a write after the container is gone fails with EPIPE: the session sees the end instead
  stdout.on('error', () => undefined);
  stderr.on('error', () => undefined);

  const remove = (): Promise<void> => {
    removal ??= removeContainer(docker, container.id).catch(() => undefined);
    return removal;
  };

  const exited = ended.then(async (): Promise<GuestExit> => {
    if (killed) return { code: null, signal: 'SIGKILL' };
    try {
      const status = (await container.wait({ condition: 'not-running' } as Dockerode.ContainerWaitOptions)) as { StatusCode?: number };
      return killed ? { code: null, signal: 'SIGKILL' } : exitFromStatus(status.StatusCode);
    } catch (err) {
      // no HTTP status: the engine itself is gone (a 404 only means the container is)
      if (!killed && dockerStatus(err) === undefined) engineError = err;
      return { code: null, signal: killed ? 'SIGKILL' : null };
    }
  });

  return {
    name,
    id: container.id,
    stdin: socket,
    stdout,
    stderr,
    exited,
    get alive() {
      return alive;
    },
    get killed() {
      return killed;
    },
    get programSent() {
      return programSent;
    },
    get engineError() {
      return engineError;
    },
    sendProgram(source: string) {
      if (programSent) return;
      programSent = true;
      socket.write(`${JSON.stringify({ type: 'program', source })}\n`);
    },
    kill() {
      if (killed) return;
      killed = true;
      void remove();
    },
    async oomKilled() {
      try {
        const info = (await container.inspect()) as { State?: { OOMKilled?: boolean } };
        return info.State?.OOMKilled === true;
      } catch {
        return false;
      }
    },
    async dispose() {
      killed = true;
      await remove();
      socket.destroy();
      onEnd();
    },
  };
}
