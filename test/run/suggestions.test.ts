/** Failures that say what to do: an unknown tool ID suggests the closest registered IDs. */
import { describe, expect, it } from 'vitest';
import { createToolIndex, suggestToolIds } from '../../src/discovery/index.js';
import { localBackend, type Tool } from '../../src/model/index.js';
import { createRunner, type ToolError } from '../../src/run/index.js';
import { rejectionOf } from './helpers.js';

function tool(name: string, namespace?: string, description = ''): Tool {
  return { name, description, inputSchema: { type: 'object' }, ...(namespace === undefined ? {} : { namespace }) };
}

function fsIndex() {
  const index = createToolIndex();
  index.registerTool(tool('read_text_file', 'fs', 'Read a text file'), localBackend('read'));
  index.registerTool(tool('write_file', 'fs', 'Write a file'), localBackend('write'));
  index.registerTool(tool('create_entities', 'memory', 'Create entities in the knowledge graph'), localBackend('create'));
  return index;
}

describe('suggestToolIds', () => {
  it('finds the namespace-qualified ID of a bare name first', () => {
    expect(suggestToolIds(fsIndex(), 'read_text_file')[0]).toBe('fs:read_text_file');
  });

  it('finds an ID within a small edit distance', () => {
    expect(suggestToolIds(fsIndex(), 'fs:read_txt_file')).toEqual(['fs:read_text_file']);
    expect(suggestToolIds(fsIndex(), 'fs:writ_file')[0]).toBe('fs:write_file');
  });

  it("falls back to the index's search for the ID's words", () => {
    expect(suggestToolIds(fsIndex(), 'knowledge:graph')).toEqual(['memory:create_entities']);
  });

  it('gives at most `max` IDs, and none for an unrelated ID', () => {
    const index = createToolIndex();
    for (const ns of ['a', 'b', 'c', 'd']) index.registerTool(tool('read', ns), localBackend(`${ns}read`));
    expect(suggestToolIds(index, 'read')).toEqual(['a:read', 'b:read', 'c:read']);
    expect(suggestToolIds(index, 'read', 1)).toEqual(['a:read']);
    expect(suggestToolIds(fsIndex(), 'zzzzzz')).toEqual([]);
  });
});

describe('TOOL_NOT_FOUND says what to do', () => {
  const local = { read: () => 'text', write: () => 'ok', create: () => 'ok' };

  it('names the closest IDs in the message and in details.suggestions', async () => {
    const runner = createRunner({ index: fsIndex(), local });
    const err = (await rejectionOf(runner.run('read_text_file', {}))) as ToolError;
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(err.message).toBe("run: resolve read_text_file: tool not found; did you mean 'fs:read_text_file'?");
    expect(err.details).toEqual({ suggestions: ['fs:read_text_file'] });
  });

  it('keeps the plain message when nothing is close', async () => {
    const runner = createRunner({ index: fsIndex(), local });
    const err = (await rejectionOf(runner.run('zzzzzz', {}))) as ToolError;
    expect(err.message).toBe('run: resolve zzzzzz: tool not found');
    expect(err.details).toBeUndefined();
  });
});
