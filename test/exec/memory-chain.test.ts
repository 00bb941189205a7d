/**
 * The acceptance chain of issue 23: read a file with a local tool, then store its first line with
 * `memory:create_entities` of the published `@modelcontextprotocol/server-memory`, started over
 * stdio by the facade; the step's arguments are built from the first step's structured result.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExec, defineLocalTool, type Exec } from '../../src/exec/index.js';

const require = createRequire(import.meta.url);
const memoryPackage = require.resolve('@modelcontextprotocol/server-memory/package.json');
const memoryBin = join(dirname(memoryPackage), (require(memoryPackage) as { bin: Record<string, string> }).bin['mcp-server-memory']!);

/** A first step that really reads: the file's first line, and its path. */
const readFirstLine = defineLocalTool({
  tool: {
    name: 'read_first_line',
    namespace: 'fs',
    description: 'Reads a text file and returns its first line',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
    outputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, firstLine: { type: 'string' } },
      required: ['path', 'firstLine'],
    },
  },
  handler: async ({ path }, ctx) => {
    const text = await readFile(path, { encoding: 'utf8', signal: ctx.signal });
    return { path, firstLine: text.split('\n')[0] ?? '' };
  },
});

/** The first step's result, checked rather than cast. */
function firstLineOf(previous: unknown): { path: string; firstLine: string } {
  if (previous === null || typeof previous !== 'object') throw new TypeError('the read step returned no object');
  const { path, firstLine } = previous as Record<string, unknown>;
  if (typeof path !== 'string' || typeof firstLine !== 'string') throw new TypeError('the read step returned no path and first line');
  return { path, firstLine };
}

let dir: string;
let memoryFile: string;
let notePath: string;
let exec: Exec;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolexec-memory-'));
  memoryFile = join(dir, 'memory.jsonl');
  notePath = join(dir, 'note.txt');
  await writeFile(notePath, 'Ada Lovelace wrote the first program\nsecond line, not stored\n');
  exec = createExec({
    tools: [readFirstLine],
    mcpServers: { memory: { command: process.execPath, args: [memoryBin], env: { MEMORY_FILE_PATH: memoryFile } } },
  });
});

afterAll(async () => {
  await exec?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a chain read → memory:create_entities against the published server-memory', () => {
  it('stores the first line of the file as an entity, with arguments built from the read step', async () => {
    const out = await exec.runChain([
      { toolId: 'fs:read_first_line', args: { path: notePath } },
      {
        toolId: 'memory:create_entities',
        argsFrom: (previous) => {
          const { path, firstLine } = firstLineOf(previous);
          return { entities: [{ name: firstLine, entityType: 'note', observations: [`first line of ${path}`] }] };
        },
      },
    ]);
    expect(out.steps.map((step) => step.toolId)).toEqual(['fs:read_first_line', 'memory:create_entities']);
    expect(out.steps[0]?.value).toEqual({ path: notePath, firstLine: 'Ada Lovelace wrote the first program' });
    expect(out.result.value).toMatchObject({
      entities: [{ name: 'Ada Lovelace wrote the first program', entityType: 'note', observations: [`first line of ${notePath}`] }],
    });

    // The server stored it: its own read_graph returns it, and its memory file holds it.
    const graph = await exec.runTool('memory:read_graph', {});
    expect(graph.value).toMatchObject({
      entities: [{ name: 'Ada Lovelace wrote the first program', entityType: 'note', observations: [`first line of ${notePath}`] }],
    });
    const stored = await readFile(memoryFile, 'utf8');
    expect(stored).toContain('"name":"Ada Lovelace wrote the first program"');
  });

  it('a declarative mapping feeds the stored name into search_nodes, and a bad shape names the argument from the previous step', async () => {
    const found = await exec.runChain([
      { toolId: 'fs:read_first_line', args: { path: notePath } },
      { toolId: 'memory:search_nodes', argsFrom: { query: '/firstLine' } },
    ]);
    expect(found.result.value).toMatchObject({ entities: [{ name: 'Ada Lovelace wrote the first program' }] });

    // create_entities wants an array of entities, not the read step's string.
    const failed = await exec
      .runChain([
        { toolId: 'fs:read_first_line', args: { path: notePath } },
        { toolId: 'memory:create_entities', argsFrom: { entities: '/firstLine' } },
      ])
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failed).toMatchObject({ code: 'VALIDATION', details: { fromPrevious: ['entities'] } });
    expect((failed as Error).message).toContain('(arguments from the previous step: entities)');
  });
});
