/**
 * A refused batch says which entry failed and leaves the index as it was; a custom backend
 * selector's failures are library errors.
 */
import { describe, expect, it } from 'vitest';
import { createDocStore, createToolIndex, type ChangeEvent, type ToolRegistration } from '../../src/discovery/index.js';
import { ToolexecError } from '../../src/model/index.js';
import { expectCode, local, mcp, tool } from './support.js';

describe('registerTools: all or nothing, naming the failing entry', () => {
  const batch = (bad: string): ToolRegistration[] =>
    Array.from({ length: 5000 }, (_, i) => ({ tool: tool(i === 3127 ? bad : `tool_${i}`, { namespace: 'src' }), backend: mcp('src') }));

  it('names the entry, shows an invisible character, and registers nothing', () => {
    const index = createToolIndex();
    const events: ChangeEvent[] = [];
    index.onChange((event) => events.push(event));
    const error = expectCode(() => index.registerTools(batch('list files')), 'INVALID_TOOL');
    expect(error.message).toBe(
      'invalid tool: name contains invalid characters: U+0020 (registration 3127 of 5000, name "list files", ID "src:list files"; nothing in the batch was registered)',
    );
    expect(error.details).toMatchObject({ index: 3127, count: 5000, registered: 0, name: 'list files', toolId: 'src:list files' });
    expect(ToolexecError.isInstance(error.cause, 'INVALID_TOOL')).toBe(true);
    expect(index.search('', 10)).toEqual([]);
    expect(index.version).toBe(0);
    expect(events).toEqual([]);
  });

  it('escapes a zero-width character in the quoted name', () => {
    const error = expectCode(() => createToolIndex().registerTools(batch('list\u200bfiles')), 'INVALID_TOOL');
    expect(error.message).toContain('U+200B');
    expect(error.message).toContain('name "list\\u{200b}files"');
  });

  it('refuses an entry whose MCP fields differ from an earlier entry of the same batch, or from the index', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { description: 'one' }), local('a'));
    const error = expectCode(
      () =>
        index.registerTools([
          { tool: tool('u', { description: 'x' }), backend: local('u') },
          { tool: tool('u', { description: 'y' }), backend: local('v') },
        ]),
      'INVALID_TOOL',
    );
    expect(error.details).toMatchObject({ index: 1, toolId: 'u' });
    expectCode(() => index.getTool('u'), 'TOOL_NOT_FOUND');
    expectCode(() => index.registerTools([{ tool: tool('t', { description: 'two' }), backend: local('b') }]), 'INVALID_TOOL');
    expect(index.getAllBackends('t')).toEqual([local('a')]);
  });

  it('delivers the events of a good batch in order once all of it is in', () => {
    const index = createToolIndex();
    const seen: [string, number, number][] = [];
    index.onChange((event) => seen.push([event.toolId, event.version, index.version]));
    index.registerTools([
      { tool: tool('a'), backend: local('a') },
      { tool: tool('b'), backend: local('b') },
    ]);
    expect(seen).toEqual([
      ['a', 1, 2],
      ['b', 2, 2],
    ]);
  });

  it('registerToolsFromMcp names the failing tool and how many stay registered', () => {
    const index = createToolIndex();
    const error = expectCode(() => index.registerToolsFromMcp('srv', [tool('ok1'), tool('ok2'), tool('bad name')]), 'INVALID_TOOL');
    expect(error.message).toContain('registration 2 of 3, name "bad name"');
    expect(error.message).toContain('the 2 registrations before it stay registered');
    expect(error.details).toMatchObject({ index: 2, registered: 2 });
    expect(index.getTool('srv:ok2').tool.name).toBe('ok2');
  });
});

describe('getTool with a custom backend selector', () => {
  it('a throwing selector is EXECUTION with the error as cause', () => {
    const thrown = new Error('sel');
    const index = createToolIndex({
      backendSelector: () => {
        throw thrown;
      },
    });
    index.registerTool(tool('a'), local('a'));
    const error = expectCode(() => index.getTool('a'), 'EXECUTION');
    expect(error.message).toBe('backend selector failed: sel');
    expect(error.cause).toBe(thrown);
    expect(error.details).toMatchObject({ toolId: 'a' });
  });

  it('a selector that returns no backend is CONFIGURATION', () => {
    const index = createToolIndex({ backendSelector: () => undefined as never });
    index.registerTool(tool('a'), local('a'));
    const error = expectCode(() => index.getTool('a'), 'CONFIGURATION');
    expect(error.message).toBe('backend selector returned undefined, not a backend (for a)');
  });

  it("a selector's own ToolexecError passes unchanged, and a good choice is returned", () => {
    const index = createToolIndex({ backendSelector: (backends) => backends[backends.length - 1] as never });
    index.registerTool(tool('a'), local('a'));
    index.registerTool(tool('a'), mcp('m'));
    expect(index.getTool('a').backend).toEqual(mcp('m'));
    const failing = createToolIndex({
      backendSelector: () => {
        throw new ToolexecError('NO_BACKENDS', 'none');
      },
    });
    failing.registerTool(tool('a'), local('a'));
    expect(expectCode(() => failing.getTool('a'), 'NO_BACKENDS').message).toBe('none');
  });
});

describe('registering a changed tool again', () => {
  const first = tool('send_email', {
    namespace: 'gmail',
    description: 'Sends an email',
    inputSchema: { type: 'object', properties: { to: { type: 'string' } } },
  });
  const changed = tool('send_email', {
    namespace: 'gmail',
    description: 'Dispatches a message',
    inputSchema: { type: 'object', properties: { recipient: { type: 'string' } } },
  });

  it('names the MCP fields that differ and how to replace the tool (registerTool and registerTools)', () => {
    const index = createToolIndex();
    index.registerTool(first, mcp('gmail'));
    const single = expectCode(() => index.registerTool(changed, mcp('gmail')), 'INVALID_TOOL');
    expect(single.details).toMatchObject({ toolId: 'gmail:send_email', fields: ['description', 'inputSchema'] });
    expect(single.details?.hint).toContain('unregisterBackend');
    const batch = expectCode(() => index.registerTools([{ tool: { ...first, title: 'Send' }, backend: mcp('gmail') }]), 'INVALID_TOOL');
    expect(batch.details).toMatchObject({ toolId: 'gmail:send_email', fields: ['title'], index: 0 });
  });

  it('after unregistering, the changed tool is what search and docs show', () => {
    const index = createToolIndex();
    index.registerTool(first, mcp('gmail'));
    index.unregisterBackend('gmail:send_email', 'mcp', 'gmail');
    index.registerTool(changed, mcp('gmail'));
    expect(index.search('dispatches', 1).map((summary) => summary.id)).toEqual(['gmail:send_email']);
    const doc = createDocStore({ index }).describeTool('gmail:send_email', 'schema');
    expect(doc.summary).toBe('Dispatches a message');
    expect(doc.schemaInfo?.types).toEqual({ recipient: ['string'] });
  });
});
