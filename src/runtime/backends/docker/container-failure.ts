/**
 * What a failed container run really was: the guest's own report, or the container's end seen
 * from the engine (an OOM kill, an engine that stopped answering, a backend closed mid-run).
 */
import type { GuestFailure } from '../../guest/session.js';
import { dockerMessage } from './docker-client.js';
import type { SandboxContainer } from './sandbox-container.js';

/**
 * Whether a container that failed, and that the backend did not kill, was ended for its memory:
 * the engine's OOM record, or else a SIGKILL exit. The engine's record is missing at times when the
 * kill went through gVisor's sandbox on a loaded machine, and nothing but the kernel or the engine
 * sends SIGKILL to the container's main process under runc (it is PID 1, which ignores signals from
 * inside). Under gVisor a snippet can SIGKILL its own process; that is reported the same way.
 */
async function memoryKill(running: SandboxContainer): Promise<{ oomKilled: boolean } | undefined> {
  if (await running.oomKilled()) return { oomKilled: true };
  return (await running.exited).signal === 'SIGKILL' ? { oomKilled: false } : undefined;
}

/** What {@link containerFailure} weighs besides the session's failure. */
export interface ContainerFailureContext {
  /** The run's memory cap (0 = none). */
  memoryBytes: number;
  /** The engine, as messages name it. */
  engine: string;
  /** The backend kind. */
  kind: string;
  /** True when the backend was closed during the run. */
  closed: boolean;
}

/**
 * The run's failure: an OOM-killed container → `RESOURCE_LIMIT` (`limit: 'memory'`); a guest that
 * died because the engine stopped answering, or because the backend was closed → `RUNTIME_UNAVAILABLE`;
 * otherwise the session's failure unchanged (undefined for a successful run).
 */
export async function containerFailure(
  failure: GuestFailure | undefined,
  running: SandboxContainer,
  context: ContainerFailureContext,
): Promise<GuestFailure | undefined> {
  if (failure === undefined) return undefined;
  const memory = !running.killed && context.memoryBytes > 0 ? await memoryKill(running) : undefined;
  if (memory !== undefined) {
    return {
      code: 'RESOURCE_LIMIT',
      message: memory.oomKilled
        ? `resource limit exceeded: memory (the container was OOM-killed at ${context.memoryBytes} bytes)`
        : `resource limit exceeded: memory (the container was killed by SIGKILL under its ${context.memoryBytes}-byte limit; the engine recorded no OOM kill)`,
      details: { limit: 'memory', memoryBytes: context.memoryBytes, oomKilled: memory.oomKilled },
    };
  }
  if (running.engineError !== undefined && failure.code === 'CODE_EXECUTION') {
    return {
      code: 'RUNTIME_UNAVAILABLE',
      message: `runtime unavailable: ${context.engine} stopped answering during the run: ${dockerMessage(running.engineError)}`,
      cause: running.engineError,
    };
  }
  if (context.closed && failure.code !== 'ABORTED' && failure.code !== 'TIMEOUT') {
    return {
      code: 'RUNTIME_UNAVAILABLE',
      message: `runtime unavailable: the ${context.kind} backend was closed during the run`,
      cause: failure.cause,
    };
  }
  return failure;
}
