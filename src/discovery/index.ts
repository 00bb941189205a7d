/**
 * Discovery: the tool index (registration, lookup, full-text search, pages, change events) and
 * the documentation store.
 *
 * @module toolexec/discovery
 */
export { InMemoryToolIndex, createToolIndex } from './tool-index.js';
export { defaultBackendSelector } from './backend-selector.js';
export { InMemoryDocStore, DETAIL_LEVELS, DOC_LIMITS, createDocStore } from './doc-store.js';
export { MAX_ARGS_DEPTH, MAX_ARGS_KEYS, measureArgs } from './args-caps.js';
export type { ArgsMeasure } from './args-caps.js';
export { deriveSchemaInfo } from './schema-info.js';
export { SUMMARY_MAX_BYTES } from './summary.js';
export { compareCodePoints } from './compare.js';
export { suggestToolIds } from './suggest.js';
export type {
  BackendSelector,
  ChangeEvent,
  ChangeType,
  DetailLevel,
  DocEntry,
  DocStore,
  DocStoreOptions,
  Page,
  SchemaInfo,
  SearchDoc,
  Searcher,
  ToolDoc,
  ToolExample,
  ToolIndex,
  ToolIndexOptions,
  ToolRegistration,
  ToolSummary,
} from './types.js';
