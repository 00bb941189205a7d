/**
 * The runtime: routes each snippet to the backend of its security profile, after the checks every
 * request goes through.
 */
import { asLibraryError, layerErrors, linkedSignal, textOf, type Deadline } from '../../model/internal.js';
import type { ToolexecError } from '../../model/index.js';
import { runtimeError } from './errors.js';

const requestErrors = layerErrors('runtime');
import { createDefaultBackends, createDefaultPythonBackend, type BackendFactory } from './default-backends.js';
import { isPythonLanguage } from './snippet.js';
import { resolvePythonOptions } from '../backends/python/options.js';
import { DEFAULT_MAX_SOURCE_BYTES, checkSourceSize, isSecurityProfile, validateRequest } from './request.js';
import { resolveWasmOptions } from '../backends/wasm/options.js';
import type {
  ExecuteRequest,
  ExecuteResult,
  Runtime,
  RuntimeBackend,
  RuntimeOptions,
  RuntimeWarmOptions,
  SecurityProfile,
  ToolCallRecord,
} from './types.js';

/** The profiles whose Python requests go to the runtime's own Python backend when theirs does not run Python. */
const PYTHON_PROFILES: ReadonlySet<SecurityProfile> = new Set(['standard', 'hardened']);

/** The profile used when neither the request nor the options name one. */
export const DEFAULT_SECURITY_PROFILE: SecurityProfile = 'standard';

interface Slot {
  /** A backend the caller gave (never closed by the runtime). */
  backend?: RuntimeBackend;
  /** A default backend, created on first use (closed by the runtime). */
  factory?: BackendFactory;
}

function traceOf(gateway: unknown): ToolCallRecord[] | undefined {
  const getToolCalls = (gateway as { getToolCalls?: unknown } | null)?.getToolCalls;
  if (typeof getToolCalls !== 'function') return undefined;
  const calls: unknown = (getToolCalls as () => unknown).call(gateway);
  return Array.isArray(calls) ? (calls as ToolCallRecord[]) : undefined;
}

/** The reason runs are stopped with when their runtime closes. */
class RuntimeClosed extends Error {
  constructor() {
    super('the runtime was closed during the run');
    this.name = 'RuntimeClosed';
  }
}

/** A run stopped because its runtime closed: `RUNTIME_UNAVAILABLE`, the backend's own error as `cause`. */
function closedDuringRun(cause: unknown): ToolexecError {
  return runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the runtime was closed during the run', { cause });
}

/**
 * The default {@link Runtime}.
 *
 * @remarks
 * `execute` checks, in order: the `signal` (`INVALID_ARGUMENT` for one that is no AbortSignal,
 * `ABORTED` for an aborted one), the gateway (`MISSING_GATEWAY`),
 * the code (`MISSING_CODE`), `timeoutMs` and limits (`INVALID_LIMITS` naming the field), the
 * source's size (`LIMIT_EXCEEDED`, `details.limit: 'sourceBytes'`, past `maxSourceBytes`); then
 * resolves the profile (`request.profile`, or `defaultProfile` when absent or `''`; an unknown one is
 * `RUNTIME_UNAVAILABLE`), finds its backend (`RUNTIME_UNAVAILABLE` `no backend for profile "x"`)
 * and refuses an `unsafe_host` backend for a profile in `denyUnsafeProfiles` (`BACKEND_DENIED`).
 * The backend receives the request with `profile` filled in. When the backend reports no tool
 * calls and the gateway has `getToolCalls()` (the direct gateway), those become the result's
 * `toolCalls`. The runtime enforces no limit itself: backends do.
 *
 * A Python request (`language: 'python'` or `'py'`) goes to the profile's backend when it lists
 * `python` in `languages`, else, for `standard` and `hardened`, to the runtime's Python backend
 * (Pyodide, made with the `python` options on first use and closed with the runtime); otherwise it
 * is `RUNTIME_UNAVAILABLE` naming the profile and the language.
 *
 * Without `backends`, `standard` and `hardened` run on the WASM backend (made with the `wasm`
 * options: pool size, queue bound, ceilings) and `dev` on the
 * unsafe host backend (which still needs the per-request opt-in); these are created on first use
 * and closed by {@link DefaultRuntime.close}. Safe for concurrent use.
 */
export class DefaultRuntime implements Runtime {
  readonly #slots = new Map<SecurityProfile, Slot>();
  readonly #created = new Map<BackendFactory, Promise<RuntimeBackend>>();
  readonly #deny: ReadonlySet<SecurityProfile>;
  readonly #defaultProfile: SecurityProfile;
  readonly #maxSourceBytes: number;
  /** The runtime's Python backend, created on first use; absent with `python: false`. */
  readonly #python: BackendFactory | undefined;
  #closed = false;
  /** The runs in flight, each with the signal {@link DefaultRuntime.close} aborts. */
  readonly #running = new Set<Deadline>();

  constructor(options: RuntimeOptions = {}) {
    const defaultProfile = options.defaultProfile ?? DEFAULT_SECURITY_PROFILE;
    if (!isSecurityProfile(defaultProfile)) {
      throw runtimeError('CONFIGURATION', `configuration error: unknown default profile "${String(defaultProfile)}"`, {
        details: { field: 'defaultProfile', value: defaultProfile },
      });
    }
    this.#defaultProfile = defaultProfile;
    this.#deny = new Set(options.denyUnsafeProfiles ?? []);
    const maxSourceBytes = options.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
    if (typeof maxSourceBytes !== 'number' || !Number.isInteger(maxSourceBytes) || maxSourceBytes <= 0) {
      throw runtimeError('CONFIGURATION', 'configuration error: maxSourceBytes must be a positive integer', {
        details: { field: 'maxSourceBytes', value: maxSourceBytes },
      });
    }
    this.#maxSourceBytes = maxSourceBytes;
    if (options.python === false) this.#python = undefined;
    else {
      // checked now: a bad option fails createRuntime, not the first snippet
      resolvePythonOptions(options.python ?? {});
      this.#python = createDefaultPythonBackend(options.python ?? {});
    }
    if (options.backends !== undefined) {
      for (const [profile, backend] of Object.entries(options.backends)) {
        if (backend !== undefined && backend !== null) this.registerBackend(profile as SecurityProfile, backend);
      }
    } else {
      // checked now: a bad option fails createRuntime, not the first snippet
      const wasm = options.wasm ?? {};
      resolveWasmOptions(wasm);
      for (const [profile, factory] of createDefaultBackends(wasm)) this.#slots.set(profile, { factory });
    }
  }

  /** The profile used when a request names none. */
  get defaultProfile(): SecurityProfile {
    return this.#defaultProfile;
  }

  /** Maps `profile` to `backend` (replacing any mapping). The runtime never closes it. */
  registerBackend(profile: SecurityProfile, backend: RuntimeBackend): void {
    if (!isSecurityProfile(profile)) {
      throw runtimeError('CONFIGURATION', `configuration error: unknown profile "${String(profile)}"`, {
        details: { field: 'profile', value: profile },
      });
    }
    this.#slots.set(profile, { backend });
  }

  /** Removes the mapping of `profile`. */
  unregisterBackend(profile: SecurityProfile): void {
    this.#slots.delete(profile);
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    let profile: unknown;
    let given: ExecuteRequest;
    try {
      validateRequest(request);
      checkSourceSize(request.code, this.#maxSourceBytes);
      // '' counts as unset
      profile = request.profile === undefined || (request.profile as string) === '' ? this.#defaultProfile : request.profile;
      given = { ...request };
    } catch (err) {
      // A request that cannot be read (a throwing getter, a revoked proxy) is a bad argument.
      throw asLibraryError(requestErrors, 'request', err);
    }
    if (!isSecurityProfile(profile)) {
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: unknown security profile "${textOf(profile)}"`, {
        details: { profile: textOf(profile) },
      });
    }
    if (this.#closed) {
      throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the runtime is closed', { details: { profile } });
    }
    const backend = isPythonLanguage(given.language) ? await this.#pythonBackendFor(profile) : await this.#backendFor(profile);
    if (backend === undefined) {
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: no backend for profile "${profile}"`, {
        details: { profile },
      });
    }
    if (this.#deny.has(profile) && backend.kind === 'unsafe_host') {
      throw runtimeError('BACKEND_DENIED', `backend denied by policy: unsafe backend denied for profile "${profile}"`, {
        details: { profile, backend: backend.kind },
      });
    }
    if (given.onStart !== undefined && backend.reportsStart !== true) {
      try {
        given.onStart();
      } catch {
        // the caller's hook cannot stop the run
      }
      const { onStart: _reported, ...rest } = given;
      given = rest;
    }
    // A run this runtime dispatched is stopped when it closes, whoever owns the backend.
    const run = linkedSignal(given.signal);
    this.#running.add(run);
    let result: ExecuteResult;
    try {
      result = await backend.execute({ ...given, profile, signal: run.signal });
    } catch (err) {
      if (run.reason instanceof RuntimeClosed) throw closedDuringRun(err);
      throw err;
    } finally {
      this.#running.delete(run);
      run.dispose();
    }
    if (result.toolCalls === undefined || result.toolCalls.length === 0) {
      const trace = traceOf(given.gateway);
      if (trace !== undefined && trace.length > 0) return { ...result, toolCalls: trace };
    }
    return result;
  }

  /**
   * Starts the backends of `options.languages` (default `['python']`) of the default profile, so
   * the first snippet does not wait for them: `python` starts the Python backend's pool of
   * children; `javascript` warms the profile's backend when it can be warmed. Rejects with the
   * backend's error (`RUNTIME_UNAVAILABLE` when Python cannot run here, naming what is missing).
   */
  async warm(options: RuntimeWarmOptions = {}): Promise<void> {
    if (this.#closed) {
      throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the runtime is closed', {
        details: { profile: this.#defaultProfile },
      });
    }
    const languages = options.languages ?? ['python'];
    // each backend is warmed once, for the languages it is asked to run
    const backends = new Map<RuntimeBackend, string[]>();
    for (const language of languages) {
      const backend = isPythonLanguage(language)
        ? await this.#pythonBackendFor(this.#defaultProfile)
        : await this.#backendFor(this.#defaultProfile);
      if (backend === undefined) continue;
      const asked = backends.get(backend);
      if (asked === undefined) backends.set(backend, [language]);
      else asked.push(language);
    }
    await Promise.all([...backends].map(async ([backend, asked]) => backend.warm?.({ languages: asked })));
  }

  /**
   * Stops the runs it dispatched (on any backend, its own or the caller's: they reject with
   * `RUNTIME_UNAVAILABLE`), then closes every backend the runtime created (not the ones it was
   * given). Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const run of this.#running) run.abort(new RuntimeClosed());
    const created = [...this.#created.values()];
    this.#created.clear();
    await Promise.allSettled(
      created.map(async (pending) => {
        const backend = await pending;
        await backend.close?.();
      }),
    );
  }

  /**
   * The backend of a Python request: the profile's own when it runs Python, else (for `standard` and
   * `hardened`) the runtime's Python backend.
   * @throws `RUNTIME_UNAVAILABLE` naming the profile and the language when neither runs it.
   */
  async #pythonBackendFor(profile: SecurityProfile): Promise<RuntimeBackend> {
    const own = await this.#backendFor(profile);
    if (own?.languages?.includes('python') === true) return own;
    if (this.#python !== undefined && PYTHON_PROFILES.has(profile)) return this.#create(this.#python);
    throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: no backend for language "python" in profile "${profile}"`, {
      details: { profile, language: 'python' },
    });
  }

  async #backendFor(profile: SecurityProfile): Promise<RuntimeBackend | undefined> {
    const slot = this.#slots.get(profile);
    if (slot === undefined) return undefined;
    if (slot.backend !== undefined) return slot.backend;
    return this.#create(slot.factory as BackendFactory);
  }

  /** The backend of `factory`, created once and closed with the runtime. */
  #create(factory: BackendFactory): Promise<RuntimeBackend> {
    let pending = this.#created.get(factory);
    if (pending === undefined) {
      pending = factory();
      this.#created.set(factory, pending);
      pending.catch(() => this.#created.delete(factory));
    }
    return pending;
  }
}

/** Creates a {@link DefaultRuntime}. */
export function createRuntime(options: RuntimeOptions = {}): DefaultRuntime {
  return new DefaultRuntime(options);
}
