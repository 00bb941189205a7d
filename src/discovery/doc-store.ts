/**
 * The in-memory documentation store: summaries, notes, examples and schema facts at three
 * levels of detail (the Go `tooldoc` package's behaviour).
 */
import { ToolexecError, errorMessage, truncateUtf8, type Tool } from '../model/index.js';
import { MAX_ARGS_DEPTH, MAX_ARGS_KEYS, measureArgs } from './args-caps.js';
import { deriveSchemaInfo } from './schema-info.js';
import { suggestToolIds } from './suggest.js';
import { modes, securitySummary } from './tool-facts.js';
import type { DetailLevel, DocEntry, DocStore, DocStoreOptions, ToolDoc, ToolExample, ToolIndex } from './types.js';
import { discoveryErrors as errors, guardErrors } from './errors.js';
import { checkToolId } from './arguments.js';
import { describeValue, guardCall, textOf } from '../model/internal.js';

/** The caps applied when docs are registered, in UTF-8 bytes (text is cut, never split mid-character). */
export const DOC_LIMITS = Object.freeze({
  /** Longest {@link DocEntry.summary} (and summary taken from a tool's description). */
  summaryBytes: 200,
  /** Longest {@link DocEntry.notes}. */
  notesBytes: 2000,
  /** Longest {@link ToolExample.description}. */
  exampleDescriptionBytes: 300,
  /** Longest {@link ToolExample.resultHint}. */
  resultHintBytes: 200,
});

/** The detail levels, from least to most. */
export const DETAIL_LEVELS: readonly DetailLevel[] = Object.freeze(['summary', 'schema', 'full']);

interface DocRecord {
  readonly summary: string;
  readonly notes: string;
  readonly examples: readonly ToolExample[];
  readonly externalRefs: readonly string[];
}

interface ResolvedDocStoreOptions {
  index: Pick<ToolIndex, 'getTool'> | undefined;
  toolResolver: ((id: string) => Tool | undefined) | undefined;
  maxExamples: number;
}

interface Resolution {
  tool?: Tool;
  /** True when the tool came from the index (and must be copied before it is handed out). */
  fromIndex?: boolean;
  error?: ToolexecError;
}

function resolveDocStoreOptions(options: DocStoreOptions | undefined): ResolvedDocStoreOptions {
  const { index, toolResolver, maxExamples = 0 } = options ?? {};
  if (index !== undefined && (index === null || typeof index.getTool !== 'function')) {
    throw errors.configuration('index must be a ToolIndex (with getTool)');
  }
  if (toolResolver !== undefined && typeof toolResolver !== 'function') {
    throw errors.configuration('toolResolver must be a function');
  }
  if (typeof maxExamples !== 'number' || !(maxExamples >= 0) || !Number.isInteger(maxExamples)) {
    throw errors.configuration('maxExamples must be a non-negative integer (0 = no cap)', { maxExamples });
  }
  return { index, toolResolver, maxExamples };
}

/**
 * `TOOL_NOT_FOUND` for `id`, with the index's closest IDs (when there is an index) in the message
 * and `details.suggestions`, worded as the runner's.
 */
function notFound(id: string, index: Pick<ToolIndex, 'getTool'> | undefined): ToolexecError {
  let suggestions: string[] = [];
  try {
    // a whole index (the facade's, or one given as `index`); a lookup-only one suggests nothing
    if (index !== undefined && typeof (index as Partial<ToolIndex>).search === 'function')
      suggestions = suggestToolIds(index as ToolIndex, id);
  } catch {
    suggestions = [];
  }
  if (suggestions.length === 0) return errors.toolNotFound(textOf(id), { details: { toolId: textOf(id) } });
  const hint = suggestions.map((suggestion) => `'${suggestion}'`).join(' or ');
  return errors.toolNotFound(`${textOf(id)}; did you mean ${hint}?`, { details: { toolId: textOf(id), suggestions } });
}

function text(value: unknown, maxBytes: number): string {
  return typeof value === 'string' ? truncateUtf8(value, maxBytes) : '';
}

function isThenable(value: unknown): boolean {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/** Truncates and deep-copies one example, checking its args against the caps. */
function prepareExample(example: ToolExample, index: number): ToolExample {
  if (example === null || typeof example !== 'object') {
    throw errors.invalidArgument(`example ${index} must be an object`, { index });
  }
  const title = typeof example.title === 'string' ? example.title : '';
  const given: unknown = example.args;
  // As Go's `map[string]any`: a JSON object, or none; never a string, a number or an array.
  if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given))) {
    throw errors.invalidArgument(`example ${index} (${textOf(title)}) args must be a JSON object or null, got ${describeValue(given)}`, {
      index,
      title: textOf(title),
      field: 'args',
    });
  }
  let args: Record<string, unknown> | null;
  try {
    args = given === undefined || given === null ? null : (structuredClone(given) as Record<string, unknown>);
  } catch (error) {
    throw errors.invalidArgument(`example ${index} (${title}) args must be plain data: ${errorMessage(error)}`, { index, title }, error);
  }
  const { depth, keys, ok } = measureArgs(args);
  if (!ok) {
    throw errors.argsTooLarge(
      `example ${index} (${title}) has depth=${depth} (max ${MAX_ARGS_DEPTH}), keys=${keys} (max ${MAX_ARGS_KEYS})`,
      { index, title, depth, keys, maxDepth: MAX_ARGS_DEPTH, maxKeys: MAX_ARGS_KEYS },
    );
  }
  const prepared: ToolExample = { title, description: text(example.description, DOC_LIMITS.exampleDescriptionBytes), args };
  if (typeof example.id === 'string' && example.id !== '') prepared.id = example.id;
  const resultHint = text(example.resultHint, DOC_LIMITS.resultHintBytes);
  if (resultHint !== '') prepared.resultHint = resultHint;
  return prepared;
}

function prepareExamples(examples: readonly ToolExample[] | undefined): ToolExample[] {
  if (examples === undefined || examples === null) return [];
  if (!Array.isArray(examples)) throw errors.invalidArgument('examples must be an array');
  return (examples as readonly ToolExample[]).map(prepareExample);
}

/** A caller-owned copy of a stored example (fresh args every time). */
function copyExample(example: ToolExample): ToolExample {
  return { ...example, args: example.args === null ? null : structuredClone(example.args) };
}

/** The annotations map of a doc: both boolean hints always, the others only when set. */
function annotationsOf(tool: Tool): Record<string, unknown> | undefined {
  const annotations: unknown = tool.annotations;
  if (annotations === null || typeof annotations !== 'object') return undefined;
  const a = annotations as Record<string, unknown>;
  const map: Record<string, unknown> = { readOnlyHint: a.readOnlyHint === true, idempotentHint: a.idempotentHint === true };
  if (a.destructiveHint !== undefined) map.destructiveHint = a.destructiveHint;
  if (a.openWorldHint !== undefined) map.openWorldHint = a.openWorldHint;
  if (typeof a.title === 'string' && a.title !== '') map.title = a.title;
  return map;
}

/**
 * The in-memory {@link DocStore}.
 *
 * @remarks
 * Text is capped at registration ({@link DOC_LIMITS}); example args must stay within depth
 * {@link MAX_ARGS_DEPTH} and {@link MAX_ARGS_KEYS} keys and items (`ARGS_TOO_LARGE`, nothing
 * stored). Args are deep-copied on the way in and on the way out. Tools come from the index
 * first, then from the resolver; docs may exist for IDs neither knows. A resolver's tool that
 * cannot be read (a throwing getter, a revoked proxy) is `INVALID_ARGUMENT`
 * (`discovery: tool could not be read`, or `discovery: schema could not be read` for its schema).
 */
export class InMemoryDocStore implements DocStore {
  readonly #options: ResolvedDocStoreOptions;
  readonly #docs = new Map<string, DocRecord>();

  constructor(options?: DocStoreOptions) {
    this.#options = resolveDocStoreOptions(options);
  }

  registerDoc(id: string, entry: DocEntry): void {
    guardCall(guardErrors, 'doc entry', () => this.#registerDoc(id, entry));
  }

  #registerDoc(id: string, entry: DocEntry): void {
    checkToolId(id);
    if (entry === null || typeof entry !== 'object') throw errors.invalidArgument('doc entry must be an object');
    const examples = prepareExamples(this.#capped(entry.examples));
    const refs: unknown = entry.externalRefs;
    this.#docs.set(id, {
      summary: text(entry.summary, DOC_LIMITS.summaryBytes),
      notes: text(entry.notes, DOC_LIMITS.notesBytes),
      examples,
      externalRefs: Array.isArray(refs) ? (refs as unknown[]).filter((ref): ref is string => typeof ref === 'string') : [],
    });
  }

  /** The examples within `maxExamples`: those past the cap are dropped before anything checks them. */
  #capped(examples: readonly ToolExample[] | undefined): readonly ToolExample[] | undefined {
    const { maxExamples } = this.#options;
    return Array.isArray(examples) && maxExamples > 0 ? examples.slice(0, maxExamples) : examples;
  }

  registerExamples(id: string, examples: readonly ToolExample[]): void {
    guardCall(guardErrors, 'examples', () => this.#registerExamples(id, examples));
  }

  #registerExamples(id: string, examples: readonly ToolExample[]): void {
    checkToolId(id);
    const prepared = prepareExamples(this.#capped(examples));
    const current = this.#docs.get(id);
    this.#docs.set(
      id,
      current === undefined ? { summary: '', notes: '', examples: prepared, externalRefs: [] } : { ...current, examples: prepared },
    );
  }

  describeTool(id: string, level: DetailLevel): ToolDoc {
    return guardCall(guardErrors, 'tool', () => this.#describeTool(id, level));
  }

  #describeTool(id: string, level: DetailLevel): ToolDoc {
    if (!DETAIL_LEVELS.includes(level)) {
      throw errors.invalidDetail(level);
    }
    checkToolId(id);
    const doc = this.#docs.get(id);
    const { tool, fromIndex, error } = this.#resolve(id);
    if (level !== 'summary' && tool === undefined) {
      if (error !== undefined) throw error;
      if (doc === undefined) throw notFound(id, this.#options.index);
      throw errors.toolRequired(id, level);
    }
    let summary = doc?.summary ?? '';
    if (summary === '' && tool !== undefined && typeof tool.description === 'string') {
      summary = truncateUtf8(tool.description, DOC_LIMITS.summaryBytes);
    }
    if (summary === '' && doc === undefined && tool === undefined) throw error ?? notFound(id, this.#options.index);

    const result: ToolDoc =
      tool !== undefined && level !== 'summary' ? { tool: fromIndex === true ? structuredClone(tool) : tool, summary } : { summary };
    if (tool !== undefined) {
      const inputModes = modes(tool, 'inputModes');
      if (inputModes.length > 0) result.inputModes = inputModes;
      const outputModes = modes(tool, 'outputModes');
      if (outputModes.length > 0) result.outputModes = outputModes;
      const security = securitySummary(tool);
      if (security !== '') result.securitySummary = security;
      const annotations = annotationsOf(tool);
      if (annotations !== undefined) result.annotations = annotations;
      if (level !== 'summary') {
        const schemaInfo = deriveSchemaInfo(tool.inputSchema);
        if (schemaInfo !== undefined) result.schemaInfo = schemaInfo;
      }
    }
    if (level !== 'full' || doc === undefined) return result;
    if (doc.notes !== '') result.notes = doc.notes;
    const { maxExamples } = this.#options;
    const examples = maxExamples > 0 ? doc.examples.slice(0, maxExamples) : doc.examples;
    if (examples.length > 0) result.examples = examples.map(copyExample);
    if (doc.externalRefs.length > 0) result.externalRefs = [...doc.externalRefs];
    return result;
  }

  listExamples(id: string, max: number): ToolExample[] {
    return guardCall(guardErrors, 'tool', () => this.#listExamples(id, max));
  }

  #listExamples(id: string, max: number): ToolExample[] {
    checkToolId(id);
    const doc = this.#docs.get(id);
    let exists = false;
    if (this.#options.index !== undefined) exists = this.#fromIndex(id) !== undefined;
    if (!exists && this.#options.toolResolver !== undefined) {
      const { tool, error } = this.#fromResolver(id);
      if (error !== undefined) throw error;
      exists = tool !== undefined;
    }
    if (doc === undefined && !exists) throw notFound(id, this.#options.index);
    const examples = doc?.examples ?? [];
    if (examples.length === 0) return [];
    let limit = typeof max === 'number' && !Number.isNaN(max) ? Math.floor(max) : 0;
    const { maxExamples } = this.#options;
    if (maxExamples > 0 && (limit <= 0 || maxExamples < limit)) limit = maxExamples;
    return (limit <= 0 ? examples : examples.slice(0, limit)).map(copyExample);
  }

  /** The tool for an ID: from the index (any error = unknown), else from the resolver. */
  #resolve(id: string): Resolution {
    const indexed = this.#fromIndex(id);
    if (indexed !== undefined) return { tool: indexed, fromIndex: true };
    return this.#fromResolver(id);
  }

  #fromIndex(id: string): Tool | undefined {
    const { index } = this.#options;
    if (index === undefined) return undefined;
    try {
      return index.getTool(id).tool;
    } catch {
      return undefined;
    }
  }

  #fromResolver(id: string): Resolution {
    const { toolResolver } = this.#options;
    if (toolResolver === undefined) return {};
    let tool: unknown;
    try {
      tool = toolResolver(id);
    } catch (error) {
      if (ToolexecError.isInstance(error)) return { error };
      return {
        error: errors.toolNotFound(`${textOf(id)} (the tool resolver failed: ${errorMessage(error)})`, {
          cause: error,
          details: { toolId: id },
        }),
      };
    }
    if (tool === undefined || tool === null) return {};
    if (isThenable(tool) || typeof tool !== 'object') {
      return { error: errors.configuration('toolResolver must return a tool or undefined, synchronously') };
    }
    return { tool: tool as Tool };
  }
}

/**
 * Creates an in-memory {@link DocStore}.
 *
 * @throws {@link toolexec/model!ToolexecError} `CONFIGURATION` when an option has the wrong type.
 */
export function createDocStore(options?: DocStoreOptions): InMemoryDocStore {
  return guardCall(guardErrors, 'doc store options', () => new InMemoryDocStore(options));
}
