/** The index and the doc store, given anything: a value or a ToolexecError, never anything else. */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  compareCodePoints,
  createDocStore,
  createToolIndex,
  defaultBackendSelector,
  deriveSchemaInfo,
  measureArgs,
  suggestToolIds,
  type ToolIndex,
} from '../../src/discovery/index.js';
import { localBackend, type Tool } from '../../src/model/index.js';
import { FUZZ_RUNS, expectSyncContract, hostile, materialize } from './hostile.js';

/** An index with a few real tools, so that look-ups can hit. */
function seeded(): ToolIndex {
  const index = createToolIndex();
  for (const name of ['read_file', 'write_file', 'search']) {
    const tool: Tool = { name, namespace: 'fs', description: `${name} tool`, tags: ['files'], inputSchema: { type: 'object' } };
    index.registerTool(tool, localBackend(`fs:${name}`));
  }
  return index;
}

const index = seeded();
const docs = createDocStore({ index });

const sync: Array<[string, (a: unknown, b: unknown, c: unknown) => unknown]> = [
  ['createToolIndex', (a) => createToolIndex(a as never)],
  ['index.registerTool', (a, b) => seeded().registerTool(a as never, b as never)],
  ['index.registerTools', (a) => seeded().registerTools(a as never)],
  ['index.registerToolsFromMcp', (a, b) => seeded().registerToolsFromMcp(a as string, b as never)],
  ['index.getTool', (a) => index.getTool(a as string)],
  ['index.getAllBackends', (a) => index.getAllBackends(a as string)],
  ['index.search', (a, b) => index.search(a as string, b as number)],
  ['index.searchPage', (a, b, c) => index.searchPage(a as string, b as number, c as string)],
  ['index.listNamespacesPage', (a, b) => index.listNamespacesPage(a as number, b as string)],
  ['index.unregisterBackend', (a, b, c) => seeded().unregisterBackend(a as string, b as never, c as string)],
  ['index.onChange', (a) => seeded().onChange(a as never)],
  ['createDocStore', (a) => createDocStore(a as never)],
  ['docs.describeTool', (a, b) => docs.describeTool(a as string, b as never)],
  ['docs.registerDoc', (a, b) => createDocStore({ index }).registerDoc(a as string, b as never)],
  ['docs.registerExamples', (a, b) => createDocStore({ index }).registerExamples(a as string, b as never)],
  ['docs.listExamples', (a, b) => docs.listExamples(a as string, b as number)],
  ['suggestToolIds', (a, b) => suggestToolIds(index, a as string, b as number)],
  ['measureArgs', (a) => measureArgs(a)],
  ['deriveSchemaInfo', (a) => deriveSchemaInfo(a)],
  ['compareCodePoints', (a, b) => compareCodePoints(a as string, b as string)],
  ['defaultBackendSelector', (a) => defaultBackendSelector(a as never)],
];

describe('toolexec/discovery under hostile input', () => {
  for (const [label, call] of sync) {
    it(`${label}: a value or a ToolexecError`, () => {
      fc.assert(
        fc.property(hostile, hostile, hostile, (a, b, c) =>
          expectSyncContract(label, () => call(materialize(a), materialize(b), materialize(c))),
        ),
        { numRuns: FUZZ_RUNS },
      );
    });
  }
});
