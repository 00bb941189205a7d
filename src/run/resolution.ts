import { validateTool, type Tool, type ToolBackend, type ToolSchemaChecks } from '../model/index.js';
import { defaultBackendSelector, suggestToolIds } from '../discovery/index.js';
import { isPromiseLike } from './async-values.js';
import { invalidResolvedTool, isNotFound, lookupFailure, noBackends, toolNotFound } from './failures.js';
import type { ToolError } from './errors.js';
import type { ResolvedRunnerOptions } from './options.js';
import type { LocalHandler } from './types.js';

/**
 * Resolution: a tool ID to the tool and the backend a call runs on — the index first (its backends,
 * or the default backend when it lists none), then the resolvers — and backend selection. Index
 * resolutions are remembered while the index `version` stays the same.
 *
 * @internal
 * @module
 */

/** A tool and the backends it can run on, plus what later calls to it reuse. */
export interface Resolved {
  tool: Tool;
  /** Frozen when it comes from the resolution cache; custom selectors get a copy. */
  backends: ToolBackend[];
  /** The default selector's choice, remembered with a cached resolution. */
  selected: ToolBackend | undefined;
  /** The validator's checks bound to this tool's schemas, made on first use. */
  checks: ToolSchemaChecks | undefined;
  /**
   * The local handler of the selected backend, remembered with the local registry's `version` it
   * was found at (the registry's optional `version`); unused while that version is `undefined`.
   */
  handler: LocalHandler | undefined;
  handlerVersion: number | undefined;
}

/** Most index resolutions remembered per runner (the cache is dropped whole when full). */
const RESOLUTION_CACHE_SIZE = 1024;
/** Most tools remembered from `toolResolver` answers (the oldest goes first). */
const RESOLVER_TOOLS_KEPT = 256;

/** Resolves tool IDs and selects backends for one runner; holds only the resolution cache. */
export class Resolver {
  readonly #index: ResolvedRunnerOptions['index'];
  readonly #toolResolver: ResolvedRunnerOptions['toolResolver'];
  readonly #backendsResolver: ResolvedRunnerOptions['backendsResolver'];
  readonly #selector: ResolvedRunnerOptions['backendSelector'];
  readonly #defaultSelector: boolean;
  readonly #versioned: boolean;
  /** Index resolutions by tool ID, valid for index version {@link Resolver.#cacheVersion}. */
  readonly #cache = new Map<string, Resolved>();
  #cacheVersion: number | undefined;
  /**
   * The latest tool `toolResolver` gave for an ID: never used to run a call (the resolver is asked
   * every time), only to know the tool when a call's arguments or failure are redacted and its span
   * is named ({@link Resolver.known}).
   */
  readonly #fromResolver = new Map<string, Tool>();
  /** The last cache hit: repeated calls to one tool skip the Map. */
  #lastId: string | undefined;
  #last: Resolved | undefined;

  constructor(options: ResolvedRunnerOptions) {
    this.#index = options.index;
    this.#toolResolver = options.toolResolver;
    this.#backendsResolver = options.backendsResolver;
    this.#selector = options.backendSelector;
    this.#defaultSelector = options.backendSelector === defaultBackendSelector;
    this.#versioned = hasVersion(options.index);
    this.#cacheVersion = undefined;
    this.#lastId = undefined;
    this.#last = undefined;
  }

  /** A remembered index resolution of `toolId`, if the index has not changed since (small, for V8 to inline). */
  cached(toolId: string): Resolved | undefined {
    if (this.#versioned && toolId === this.#lastId && (this.#index as { version: number }).version === this.#cacheVersion)
      return this.#last;
    return this.#cachedInMap(toolId);
  }

  #cachedInMap(toolId: string): Resolved | undefined {
    if (!this.#versioned || (this.#index as { version: number }).version !== this.#cacheVersion) return undefined;
    const hit = this.#cache.get(toolId);
    if (hit !== undefined) {
      this.#lastId = toolId;
      this.#last = hit;
    }
    return hit;
  }

  /** The tool and its backends. A resolver that throws fails the call. */
  resolve(toolId: string): Resolved | Promise<Resolved> {
    let indexMiss: unknown;
    const index = this.#index;
    if (index !== undefined) {
      const version = this.#versioned ? index.version : undefined;
      const cacheable = typeof version === 'number';
      if (cacheable) {
        if (version === this.#cacheVersion) {
          const hit = this.#cache.get(toolId);
          if (hit !== undefined) return hit;
        } else {
          this.#clear();
          this.#cacheVersion = version;
        }
      }
      let found: { tool: Tool; backend: ToolBackend } | undefined;
      try {
        found = index.getTool(toolId);
      } catch (err) {
        if (!isNotFound(err)) throw lookupFailure('resolve', toolId, 'index lookup failed', err);
        indexMiss = err;
      }
      if (found !== undefined) {
        let backends: ToolBackend[] | undefined;
        try {
          backends = index.getAllBackends(toolId);
        } catch (err) {
          if (!isNotFound(err)) throw lookupFailure('resolve', toolId, 'index backend lookup failed', err);
        }
        const listed = backends !== undefined && backends.length > 0 ? backends : [found.backend];
        const resolved = resolution(found.tool, Object.freeze(listed) as ToolBackend[]);
        // Only an index lookup is cached: the index's version says when it goes stale.
        if (cacheable && index.version === version) {
          if (this.#cache.size >= RESOLUTION_CACHE_SIZE) this.#clear();
          this.#cache.set(toolId, resolved);
        }
        return resolved;
      }
    }
    const toolResolver = this.#toolResolver;
    if (toolResolver === undefined) throw this.#notFound(toolId, indexMiss);
    return ask(toolResolver, toolId, 'tool resolver failed', (tool) => this.#resolveBackends(toolId, tool, indexMiss));
  }

  /** The selected backend: the remembered choice, or the selector's (remembered for the default selector). */
  select(toolId: string, resolved: Resolved): ToolBackend {
    if (resolved.selected !== undefined) return resolved.selected;
    const backends = resolved.backends;
    if (backends.length === 0) throw noBackends(toolId, 'select_backend');
    let backend: ToolBackend | undefined;
    try {
      // The default selector only reads; a custom one gets its own copy.
      backend = this.#defaultSelector ? this.#selector(backends) : this.#selector(backends.slice());
    } catch (err) {
      throw lookupFailure('select_backend', toolId, 'backend selector failed', err);
    }
    if (backend === undefined || backend === null || typeof backend !== 'object') {
      throw noBackends(toolId, 'select_backend', 'the backend selector returned no backend');
    }
    if (this.#defaultSelector && Object.isFrozen(backends)) resolved.selected = backend;
    return backend;
  }

  /**
   * The tool `toolId` names as far as this runner knows it without asking a resolver: a cached
   * resolution, the index, or the latest `toolResolver` answer for it. Throws what the index throws.
   */
  known(toolId: string): Tool | undefined {
    const hit = this.cached(toolId);
    if (hit !== undefined) return hit.tool;
    const remembered = this.#fromResolver.get(toolId);
    if (remembered !== undefined) return remembered;
    return this.#index?.getTool(toolId).tool;
  }

  #resolveBackends(toolId: string, tool: Tool | undefined, indexMiss: unknown): Resolved | Promise<Resolved> {
    if (tool === undefined || tool === null || typeof tool !== 'object') throw this.#notFound(toolId, indexMiss);
    // The index checked its tools when they were registered; a resolver's answer is checked here,
    // on every call (resolver answers are not cached): a tool without a name or whose schema cannot
    // be read is the resolver's fault, not the caller's.
    try {
      validateTool(tool);
    } catch (err) {
      throw invalidResolvedTool(toolId, err);
    }
    this.#remember(toolId, tool);
    const resolver = this.#backendsResolver;
    if (resolver === undefined) throw noBackends(toolId);
    return ask(resolver, toolId, 'backends resolver failed', (backends) => resolvedOrThrow(toolId, tool, backends));
  }

  /** TOOL_NOT_FOUND with the index's closest IDs as suggestions (computed only now, on the failure). */
  #notFound(toolId: string, indexMiss: unknown): ToolError {
    const index = this.#index;
    return toolNotFound(toolId, indexMiss, index === undefined ? [] : suggestToolIds(index, toolId));
  }

  #remember(toolId: string, tool: Tool): void {
    const kept = this.#fromResolver;
    if (kept.get(toolId) === tool) return;
    kept.delete(toolId);
    if (kept.size >= RESOLVER_TOOLS_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(toolId, tool);
  }

  #clear(): void {
    this.#cache.clear();
    this.#lastId = undefined;
    this.#last = undefined;
  }
}

/**
 * Calls a resolver and continues with its answer, synchronously when it gives a value; its throw
 * or rejection fails the call (`EXECUTION` unless it is a library error: see {@link lookupFailure}).
 */
function ask<T, R>(
  resolver: (id: string) => T | Promise<T>,
  toolId: string,
  what: string,
  next: (value: T) => R | Promise<R>,
): R | Promise<R> {
  let answer: T | Promise<T>;
  try {
    answer = resolver(toolId);
  } catch (err) {
    throw lookupFailure('resolve', toolId, what, err);
  }
  if (!isPromiseLike(answer)) return next(answer);
  return Promise.resolve(answer).then(next, (err: unknown) => {
    throw lookupFailure('resolve', toolId, what, err);
  });
}

function resolution(tool: Tool, backends: ToolBackend[]): Resolved {
  return { tool, backends, selected: undefined, checks: undefined, handler: undefined, handlerVersion: undefined };
}

function resolvedOrThrow(toolId: string, tool: Tool, backends: ToolBackend[] | undefined): Resolved {
  if (!Array.isArray(backends) || backends.length === 0) throw noBackends(toolId);
  return resolution(tool, backends);
}

/** True when the index reports a numeric version (resolutions are cached only then). */
function hasVersion(index: ResolvedRunnerOptions['index']): boolean {
  if (index === undefined) return false;
  try {
    return typeof index.version === 'number';
  } catch {
    return false;
  }
}
