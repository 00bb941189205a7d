/**
 * The `temporal` backend: a **stub**. It validates its configuration and each request, then always
 * fails with `RUNTIME_UNAVAILABLE` (`temporal backend not implemented`).
 */
import { elapsedMs, limitsEnforcedNone, runtimeError, withPartialResult } from '../../core/errors.js';
import { validateRequest } from '../../core/request.js';
import type { BackendInfo, ExecuteRequest, ExecuteResult, RuntimeBackend } from '../../core/types.js';
import { OptionReader } from '../../core/option-reader.js';

/** Default Temporal frontend address. */
export const DEFAULT_TEMPORAL_HOST_PORT = 'localhost:7233';

/** Default Temporal namespace. */
export const DEFAULT_TEMPORAL_NAMESPACE = 'default';

/** Default task queue of execution activities. */
export const DEFAULT_TEMPORAL_TASK_QUEUE = 'toolruntime-execution';

/** Default prefix of workflow ids. */
export const DEFAULT_TEMPORAL_WORKFLOW_ID_PREFIX = 'toolruntime-';

/** Options of {@link createTemporalBackend}. */
export interface TemporalBackendOptions {
  /** @defaultValue 'localhost:7233' */
  hostPort?: string;
  /** @defaultValue 'default' */
  namespace?: string;
  /** @defaultValue 'toolruntime-execution' */
  taskQueue?: string;
  /** @defaultValue 'toolruntime-' */
  workflowIdPrefix?: string;
  /**
   * The backend that would provide isolation (Temporal is orchestration, not a sandbox). Required:
   * without it every run fails with `RUNTIME_UNAVAILABLE` before the stub error.
   */
  sandboxBackend?: RuntimeBackend;
}

/**
 * The `temporal` backend (readiness `stub`).
 *
 * @remarks
 * Not implemented: no Temporal client is created, no workflow runs and the sandbox backend is
 * never called. `execute` checks the request (`ABORTED`, `MISSING_GATEWAY`, `MISSING_CODE`,
 * `INVALID_LIMITS`), then the sandbox backend (`RUNTIME_UNAVAILABLE` `temporal backend requires a
 * sandbox backend for isolation`), then always rejects with `RUNTIME_UNAVAILABLE`
 * `temporal backend not implemented`; the partial result's backend is
 * `{ temporal, stub, { namespace, taskQueue, sandboxBackend } }`. Register a real backend instead.
 */
export class TemporalBackend implements RuntimeBackend {
  readonly kind = 'temporal' as const;
  readonly readiness = 'stub' as const;
  readonly #hostPort: string;
  readonly #namespace: string;
  readonly #taskQueue: string;
  readonly #workflowIdPrefix: string;
  readonly #sandbox: RuntimeBackend | undefined;

  constructor(options: TemporalBackendOptions = {}) {
    const read = new OptionReader('temporal', options);
    this.#hostPort = read.string('hostPort', DEFAULT_TEMPORAL_HOST_PORT);
    this.#namespace = read.string('namespace', DEFAULT_TEMPORAL_NAMESPACE);
    this.#taskQueue = read.string('taskQueue', DEFAULT_TEMPORAL_TASK_QUEUE);
    this.#workflowIdPrefix = read.string('workflowIdPrefix', DEFAULT_TEMPORAL_WORKFLOW_ID_PREFIX);
    this.#sandbox = read.object<RuntimeBackend>('sandboxBackend', ['execute']);
  }

  /** The resolved configuration. */
  get config(): {
    /** The Temporal frontend address (informational: no client is created). */
    hostPort: string;
    /** The Temporal namespace. */
    namespace: string;
    /** The task queue of execution activities. */
    taskQueue: string;
    /** The prefix of workflow ids. */
    workflowIdPrefix: string;
  } {
    return { hostPort: this.#hostPort, namespace: this.#namespace, taskQueue: this.#taskQueue, workflowIdPrefix: this.#workflowIdPrefix };
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const started = performance.now();
    const backend: BackendInfo = {
      kind: this.kind,
      readiness: this.readiness,
      details: {
        namespace: this.#namespace,
        taskQueue: this.#taskQueue,
        ...(this.#sandbox === undefined ? {} : { sandboxBackend: this.#sandbox.kind }),
      },
    };
    const partial = (): ExecuteResult => ({
      stdout: '',
      stderr: '',
      toolCalls: [],
      durationMs: elapsedMs(started),
      backend,
      limitsEnforced: limitsEnforcedNone(),
    });
    try {
      validateRequest(request);
    } catch (err) {
      throw withPartialResult(err, partial());
    }
    if (this.#sandbox === undefined) {
      throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: temporal backend requires a sandbox backend for isolation', {
        result: partial(),
        details: { backend: this.kind, reason: 'sandbox_backend_not_configured' },
      });
    }
    throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: temporal backend not implemented', {
      result: partial(),
      details: { backend: this.kind, reason: 'not_implemented' },
    });
  }
}

/** Creates a {@link TemporalBackend} (a stub: every run fails with `RUNTIME_UNAVAILABLE`). */
export function createTemporalBackend(options: TemporalBackendOptions = {}): TemporalBackend {
  return new TemporalBackend(options);
}
