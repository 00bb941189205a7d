import { describe, expectTypeOf, it } from 'vitest';
import {
  createDocStore,
  createToolIndex,
  defaultBackendSelector,
  measureArgs,
  type ArgsMeasure,
  type BackendSelector,
  type ChangeEvent,
  type ChangeType,
  type DetailLevel,
  type DocStore,
  type InMemoryDocStore,
  type InMemoryToolIndex,
  type Page,
  type SearchDoc,
  type Searcher,
  type ToolDoc,
  type ToolExample,
  type ToolIndex,
  type ToolIndexOptions,
  type ToolSummary,
} from '../../src/discovery/index.js';
import type { Tool, ToolBackend } from '../../src/model/index.js';

describe('discovery types', () => {
  it('createToolIndex returns the class, which is a ToolIndex', () => {
    expectTypeOf(createToolIndex).returns.toEqualTypeOf<InMemoryToolIndex>();
    expectTypeOf<InMemoryToolIndex>().toExtend<ToolIndex>();
    expectTypeOf(createToolIndex).parameter(0).toEqualTypeOf<ToolIndexOptions | undefined>();
  });

  it('lookup, search and pages have the contract types', () => {
    const index = createToolIndex();
    expectTypeOf(index.getTool('x')).toEqualTypeOf<{ tool: Tool; backend: ToolBackend }>();
    expectTypeOf(index.getAllBackends('x')).toEqualTypeOf<ToolBackend[]>();
    expectTypeOf(index.search('q', 5)).toEqualTypeOf<ToolSummary[]>();
    expectTypeOf(index.searchPage('q', 5)).toEqualTypeOf<Page<ToolSummary>>();
    expectTypeOf(index.listNamespacesPage(5)).toEqualTypeOf<Page<string>>();
    expectTypeOf<ToolIndex['searchPage']>().parameter(2).toEqualTypeOf<string | undefined>();
    expectTypeOf<Page<string>['nextCursor']>().toEqualTypeOf<string | undefined>();
    expectTypeOf(index.version).toBeNumber();
    expectTypeOf(index.refresh()).toBeNumber();
    expectTypeOf<ToolIndex['unregisterBackend']>().parameter(1).toEqualTypeOf<'local' | 'provider' | 'mcp'>();
  });

  it('change events are typed and unsubscribe is a function', () => {
    const index = createToolIndex();
    expectTypeOf(index.onChange((event) => expectTypeOf(event).toEqualTypeOf<ChangeEvent>())).toEqualTypeOf<() => void>();
    expectTypeOf<ChangeType>().toEqualTypeOf<'registered' | 'updated' | 'backend_removed' | 'tool_removed' | 'refreshed'>();
    expectTypeOf<ChangeEvent['backend']>().toEqualTypeOf<ToolBackend | undefined>();
    expectTypeOf<NonNullable<ToolIndexOptions['onListenerError']>>().parameters.toEqualTypeOf<[unknown, ChangeEvent]>();
  });

  it('searchers and selectors', () => {
    expectTypeOf<Searcher['search']>().parameters.toEqualTypeOf<[string, number, readonly SearchDoc[]]>();
    expectTypeOf<Searcher['search']>().returns.toEqualTypeOf<ToolSummary[]>();
    expectTypeOf(defaultBackendSelector).toExtend<BackendSelector>();
    expectTypeOf<{ search: () => ToolSummary[] }>().toExtend<Searcher>();
  });

  it('the doc store', () => {
    expectTypeOf(createDocStore).returns.toEqualTypeOf<InMemoryDocStore>();
    expectTypeOf<InMemoryDocStore>().toExtend<DocStore>();
    const store = createDocStore({ index: createToolIndex(), maxExamples: 3 });
    expectTypeOf(store.describeTool('x', 'full')).toEqualTypeOf<ToolDoc>();
    expectTypeOf<DocStore['describeTool']>().parameter(1).toEqualTypeOf<DetailLevel>();
    expectTypeOf(store.listExamples('x', 2)).toEqualTypeOf<ToolExample[]>();
    expectTypeOf<ToolDoc['summary']>().toBeString();
    expectTypeOf<ToolExample['args']>().toEqualTypeOf<Record<string, unknown> | null>();
    expectTypeOf(measureArgs({})).toEqualTypeOf<ArgsMeasure>();
    // @ts-expect-error: not a detail level
    store.describeTool('x', 'verbose');
  });
});
