import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';
import type { DefaultExec } from '../../src/exec/index.js';
import { META_TOOL_NAMES, metaTools, selectTools, type SelectedTool } from '../../src/agent/index.js';
import { execWith, generatedTools, SMALL_TOOLS } from './catalogue.js';

const CATALOGUE = 10_000;

describe('meta-tools over a catalogue of 10,000 tools', () => {
  let exec: DefaultExec;
  let meta: Record<string, SelectedTool>;

  beforeAll(() => {
    exec = execWith([...generatedTools(CATALOGUE), ...SMALL_TOOLS]);
    meta = Object.fromEntries(metaTools(exec).map((entry) => [entry.id, entry]));
  });
  afterAll(() => exec.close());

  it('are the six named tools, in order, with closed object schemas', async () => {
    const entries = await selectTools(exec, { meta: true, query: 'ignored' });
    expect(entries.map((entry) => entry.id)).toEqual([...META_TOOL_NAMES]);
    for (const { tool } of entries) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.description?.length).toBeGreaterThan(80);
    }
  });

  it('search_tools finds a tool among 10,000 and returns compact summaries', async () => {
    const { value, toolId } = await meta.search_tools!.run({ query: 'convert invoice', limit: 5 });
    expect(toolId).toBe('search_tools');
    const tools = (value as { tools: { id: string; summary?: string }[] }).tools;
    expect(tools).toHaveLength(5);
    for (const tool of tools) expect(tool.id).toMatch(/convert_invoice/u);
    expect(Object.keys(tools[0]!).sort()).toEqual(['id', 'summary', 'tags']);
  });

  it('list_namespaces lists every namespace of the catalogue', async () => {
    const { value } = await meta.list_namespaces!.run({});
    const namespaces = (value as { namespaces: string[] }).namespaces;
    expect(namespaces).toHaveLength(CATALOGUE / 100 + 3);
    expect(namespaces).toContain('svc99');
    expect(namespaces).toContain('fs');
  });

  it('describe_tool returns the input schema the model needs (detail schema by default)', async () => {
    const { value } = await meta.describe_tool!.run({ id: 'svc42:write_file_4201' });
    expect(value).toMatchObject({ id: 'svc42:write_file_4201', inputSchema: { required: ['target'] } });
    expect(value).not.toHaveProperty('_meta');
  });

  it('run_tool runs a catalogue tool with JSON-text arguments (objects accepted too)', async () => {
    const text = await meta.run_tool!.run({ id: 'svc99:sync_report_9999', args: '{"target":"q3","count":2}' });
    expect(text.value).toEqual({ tool: 9999, target: 'q3', count: 2 });
    const object = await meta.run_tool!.run({ id: 'math:add:1.0.0', args: { a: 2, b: 3 } });
    expect(object.value).toBe(5);
  });

  it('run_tool / describe_tool: an ID nothing is close to ends with what to do next (search_tools); a near miss keeps its suggestion', async () => {
    for (const call of [
      () => meta.run_tool!.run({ id: 'weather:forecast', args: '{}' }),
      () => meta.describe_tool!.run({ id: 'weather:forecast' }),
    ]) {
      const failure = (await call().catch((err: unknown) => err)) as ToolexecError;
      expect(ToolexecError.isInstance(failure)).toBe(true);
      expect(failure.code).toBe('TOOL_NOT_FOUND');
      expect(failure.message).toMatch(/weather:forecast.*; find tool IDs with search_tools \(or list_namespaces\)$/u);
    }
    const near = (await meta.run_tool!.run({ id: 'math:ad:1.0.0', args: '{}' }).catch((err: unknown) => err)) as ToolexecError;
    expect(near.code).toBe('TOOL_NOT_FOUND');
    expect(near.message).toContain("did you mean 'math:add:1.0.0'");
    expect(near.message).not.toContain('search_tools');
  });

  it('run_tool rejects with the validation message the model can act on', async () => {
    const failure = await meta.run_tool!.run({ id: 'svc1:read_file_100', args: '{"count":-1}' }).catch((err: unknown) => err);
    expect(ToolexecError.isInstance(failure)).toBe(true);
    expect((failure as ToolexecError).code).toBe('VALIDATION');
    expect((failure as Error).message).toMatch(/target/u);
    const badJson = await meta.run_tool!.run({ id: 'svc1:read_file_100', args: '{target:' }).catch((err: unknown) => err);
    expect((badJson as ToolexecError).code).toBe('INVALID_ARGUMENT');
    expect((badJson as Error).message).toMatch(/run_tool argument args is not valid JSON/u);
  });

  it('checks its own arguments against its schema (VALIDATION), treating strict-mode nulls as absent', async () => {
    const missing = await meta.describe_tool!.run({}).catch((err: unknown) => err);
    expect((missing as ToolexecError).code).toBe('VALIDATION');
    expect((missing as Error).message).toMatch(/id/u);
    const nulls = await meta.describe_tool!.run({ id: 'math:add:1.0.0', detail: null });
    expect(nulls.value).toMatchObject({ inputSchema: { required: ['a', 'b'] } });
    const tooMany = await meta.search_tools!.run({ query: 'x', limit: 500 }).catch((err: unknown) => err);
    expect((tooMany as ToolexecError).code).toBe('VALIDATION');
  });

  it('run_chain passes results along and reports every step', async () => {
    const { value } = await meta.run_chain!.run({
      steps: [
        { id: 'math:add:1.0.0', args: '{"a":1,"b":2}', usePrevious: null, stopOnError: null },
        { id: 'util:fail', stopOnError: false },
        { id: 'svc0:read_file_0', args: '{"target":"t"}', usePrevious: true },
      ],
    });
    expect(value).toEqual({
      result: { tool: 0, target: 't', previous: 3 },
      steps: [
        { id: 'math:add:1.0.0', value: 3 },
        { id: 'util:fail', error: expect.stringMatching(/the disk is on fire/u) as unknown },
        { id: 'svc0:read_file_0', value: { tool: 0, target: 't', previous: 3 } },
      ],
    });
  });

  it('execute_code runs a snippet in the sandbox that calls catalogue tools', async () => {
    const { value, toolId } = await meta.execute_code!.run({
      code: 'const hits = await tools.searchTools("sync report", 3); const r = await tools.runTool("math:add:1.0.0", { a: hits.length, b: 1 }); return r.structured;',
    });
    expect(toolId).toBe('execute_code');
    expect(value).toEqual({ value: 4, toolCalls: [{ id: 'math:add:1.0.0', count: 1 }] });
  }, 60_000);
});

describe('selectTools', () => {
  let exec: DefaultExec;
  beforeAll(() => {
    exec = execWith(SMALL_TOOLS);
  });
  afterAll(() => exec.close());

  it('lists every tool in ID order without ids or query', async () => {
    expect((await selectTools(exec)).map((entry) => entry.id)).toEqual(['fs:read_text_file', 'math:add:1.0.0', 'util:fail']);
  });

  it('puts ids first, then query matches without repeats; each entry runs its tool', async () => {
    const entries = await selectTools(exec, { ids: ['util:fail', 'math:add:1.0.0'], query: 'add numbers', limit: 3 });
    expect(entries.map((entry) => entry.id)).toEqual(['util:fail', 'math:add:1.0.0']);
    expect((await entries[1]!.run({ a: 1, b: 1 })).value).toBe(2);
  });

  it('refuses unknown IDs and bad options with ToolexecErrors', async () => {
    await expect(selectTools(exec, { ids: ['nope:nothing'] })).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    await expect(selectTools(exec, { limit: 0 })).rejects.toMatchObject({
      code: 'CONFIGURATION',
      message: 'agent: option limit must be a number ≥ 1',
    });
    await expect(selectTools(exec, { ids: 'fs:read_text_file' as unknown as string[] })).rejects.toMatchObject({
      code: 'CONFIGURATION',
      details: { field: 'ids' },
    });
  });
});
