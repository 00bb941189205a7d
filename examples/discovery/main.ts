/**
 * Discovery: the tool index and the doc store on their own (`toolexec/discovery`), and a runner
 * over them (`toolexec/run`).
 *
 *   node --import tsx examples/discovery/main.ts
 *
 * The index holds tools by canonical ID (`namespace:name[:version]`) with one or more backends,
 * ranks full-text searches (an exact ID or name first), pages results with opaque cursors and
 * reports every change. The doc store answers "how do I call this?" at three levels of detail.
 * Backends (`toolexec/backend`) group tools by source and register them in an index in one go.
 */
import { createAggregator, createBackendRegistry, createLocalBackend, registerBackendTools } from 'toolexec/backend';
import { createDocStore, createToolIndex, type ChangeEvent } from 'toolexec/discovery';
import { defineTool, hasErrorCode, localBackend, parseToolId, toolId } from 'toolexec/model';
import { createRunner } from 'toolexec/run';
import { check, failure, json, runExample, show } from '../shared/report.js';

await runExample('discovery', async () => {
  const index = createToolIndex();
  const changes: ChangeEvent[] = [];
  const unsubscribe = index.onChange((e) => changes.push(e));

  // Tools with a local backend (a handler name), and tools as an MCP server lists them.
  const object = { type: 'object' } as const;
  index.registerTools([
    {
      tool: defineTool({
        namespace: 'files',
        name: 'read',
        description: 'Read a text file.',
        tags: ['FS', 'read'],
        inputSchema: { ...object, properties: { path: { type: 'string' } }, required: ['path'] },
      }),
      backend: localBackend('files.read'),
    },
    {
      tool: defineTool({
        namespace: 'files',
        name: 'write',
        description: 'Write a text file, replacing it.',
        tags: ['fs', 'write'],
        inputSchema: object,
      }),
      backend: localBackend('files.write'),
    },
    {
      tool: defineTool({
        namespace: 'files',
        name: 'list',
        description: 'List the files of a directory.',
        tags: ['fs'],
        inputSchema: object,
      }),
      backend: localBackend('files.list'),
    },
    {
      tool: defineTool({
        namespace: 'math',
        name: 'add',
        version: '1.2.0',
        description: 'Add two numbers.',
        inputSchema: { ...object, properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      }),
      backend: localBackend('add'),
    },
  ]);
  index.registerToolsFromMcp('github', [
    { name: 'create_issue', description: 'Create an issue in a repository.', inputSchema: object },
    { name: 'search_code', description: 'Search code across repositories.', inputSchema: object },
    { name: 'read', description: 'Read a file from a repository.', inputSchema: object },
  ]);
  show('namespaces', index.listNamespaces().join(', '));
  show('IDs', `${toolId({ name: 'add', namespace: 'math', version: '1.2.0' })} → ${json(parseToolId('math:add:1.2.0'))}`);
  check(json(index.listNamespaces()) === json(['files', 'github', 'math']), 'three namespaces');

  // A second backend for the same tool: the default selector prefers local > provider > mcp.
  index.registerTool(
    defineTool({ namespace: 'github', name: 'read', description: 'Read a file from a repository.', inputSchema: object }),
    localBackend('github-mirror'),
  );
  show(
    'backends',
    `github:read has ${index.getAllBackends('github:read').length}; calls use ${json(index.getTool('github:read').backend)}`,
  );
  check(index.getTool('github:read').backend.kind === 'local', 'local wins');

  // Search: an exact name match ranks first, then relevance (name and namespace weigh more).
  for (const query of ['read', 'repository', 'fs write', 'issue']) {
    show(
      'search',
      `${json(query).padEnd(13)} → ${index
        .search(query, 3)
        .map((t) => t.id)
        .join(', ')}`,
    );
  }
  check(index.search('read', 1)[0]?.id === 'files:read' && index.search('repository', 1)[0]?.namespace === 'github', 'ranking');
  show('summary', json(index.search('read', 1)[0]));

  // Pages: pass the previous page's cursor. Any change to the index invalidates cursors.
  const page1 = index.searchPage('', 4);
  const page2 = index.searchPage('', 4, page1.nextCursor);
  show(
    'pages',
    `${page1.items.map((t) => t.id).join(', ')} | ${page2.items.map((t) => t.id).join(', ')} | more: ${page2.nextCursor !== undefined}`,
  );
  check(page1.items.length === 4 && page2.items.length === 3 && page2.nextCursor === undefined, 'seven tools in two pages');
  const stale = index.searchPage('', 3);
  index.unregisterBackend('files:write', 'local', 'files.write'); // its last backend: the tool goes
  const err = await failure(
    Promise.resolve().then(() => index.searchPage('', 3, stale.nextCursor)),
    'a cursor from before a change',
  );
  show('stale', `cursor after a change → ${hasErrorCode(err, 'INVALID_CURSOR') ? 'INVALID_CURSOR' : String(err)}`);
  check(hasErrorCode(err, 'INVALID_CURSOR'), 'INVALID_CURSOR');
  show('changes', changes.map((e) => `${e.type} ${e.toolId}`).join('; '));
  check(changes.at(-1)?.type === 'tool_removed', 'the last change removed files:write');
  unsubscribe();

  // Docs: `summary` (what and why), `schema` (+ the tool and what its arguments are), `full` (+ notes, examples).
  const docs = createDocStore({ index });
  docs.registerDoc('math:add:1.2.0', {
    summary: 'Adds a and b.',
    notes: 'Exact for integers up to 2^53.',
    examples: [{ title: 'Small numbers', description: 'One plus two.', args: { a: 1, b: 2 }, resultHint: '3' }],
  });
  const summary = docs.describeTool('math:add:1.2.0', 'summary');
  const schema = docs.describeTool('math:add:1.2.0', 'schema');
  const full = docs.describeTool('math:add:1.2.0', 'full');
  show('describe', `summary → ${json(summary)}`);
  show('', `schema  → schemaInfo ${json(schema.schemaInfo)}, tool ${schema.tool?.name}`);
  show(
    '',
    `full    → notes ${json(full.notes)}, ${full.examples?.length} example(s): ${json(docs.listExamples('math:add:1.2.0', 5)[0]?.args)}`,
  );
  check(
    summary.tool === undefined && json(schema.schemaInfo?.required) === json(['a', 'b']) && full.examples?.length === 1,
    'three levels',
  );
  const missing = await failure(
    Promise.resolve().then(() => docs.describeTool('math:sub', 'summary')),
    'an unknown tool',
  );
  check(hasErrorCode(missing, 'TOOL_NOT_FOUND'), 'TOOL_NOT_FOUND');

  // A runner resolves tools through the index and calls the handler its backend names.
  const runner = createRunner({ index, local: { add: ({ a, b }) => (a as number) + (b as number) } });
  const sum = await runner.run('math:add:1.2.0', { a: 2, b: 40 });
  show('run', `math:add:1.2.0 → ${json(sum.structured)} via ${json(sum.backend)}`);
  check(sum.structured === 42, '2 + 40 = 42');

  // Backends: named sources of tools (here an in-process one) that can be disabled as a whole.
  const registry = createBackendRegistry();
  const notes = createLocalBackend('notes');
  notes.registerHandler('add', {
    description: 'Add a note.',
    inputSchema: { ...object, properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => ({ saved: text }),
  });
  registry.register(notes);
  const added = await registerBackendTools(index, registry); // as notes:add, bound to the backend
  const viaIndex = await createRunner({ index, local: registry.localRegistry() }).run('notes:add', { text: 'buy milk' });
  const viaAggregator = await createAggregator(registry).execute('notes:add', { text: 'call Bob' });
  show('backends', `${added} tool from "notes": runner → ${json(viaIndex.structured)}, aggregator → ${json(viaAggregator)}`);
  notes.setEnabled(false);
  const disabled = await failure(createAggregator(registry).execute('notes:add', { text: 'x' }), 'a disabled backend');
  show('', `after setEnabled(false) → ${hasErrorCode(disabled, 'BACKEND_DISABLED') ? 'BACKEND_DISABLED' : String(disabled)}`);
  check(json(viaIndex.structured) === json({ saved: 'buy milk' }) && hasErrorCode(disabled, 'BACKEND_DISABLED'), 'backend calls');
});
