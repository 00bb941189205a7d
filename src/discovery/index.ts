/**
 * Discovery: the tool index (registration, lookup, full-text search, pages, change events) and
 * the documentation store.
 *
 * @module toolexec/discovery
 */
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
