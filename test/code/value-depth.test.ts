import { afterAll, describe, expect, it } from 'vitest';
import { createExec } from '../../src/exec/index.js';
import { depthTools } from './depth-tools.js';

/** Nests `{ o: ... }` `levels` deep around `{ leaf: true }` (the leaf is the innermost level). */
const NEST = 'const nest = (levels) => { let o = { leaf: true }; for (let i = 1; i < levels; i++) o = { o }; return o; };';
/** Counts the levels of a value made by `nest`. */
const DEPTH = 'const depth = (v) => { let d = 1; while (v.o !== undefined) { v = v.o; d++; } return d; };';

const { tools, calls } = depthTools();

/** How deep the values a snippet exchanges with its tools may nest: 512 levels, an explicit error beyond. */
describe('code mode: nesting depth of tool arguments and results', () => {
  const exec = createExec({ tools, poolSize: 1 });
  afterAll(() => exec.close());

  it('refuses arguments nested too deep with INVALID_ARGUMENT, neither counted nor traced, the handler never run', async () => {
    calls.count = 0;
    const result = await exec.executeCode({
      maxToolCalls: 2,
      code: `${NEST}
        const out = [];
        for (let k = 0; k < 3; k++) {
          try { await tools.runTool('t:echo', nest(5000)); } catch (e) { out.push([e.code, e.message]); }
        }
        try { await tools.runChain([{ toolId: 't:echo', args: nest(600) }]); } catch (e) { out.push([e.code, e.message]); }
        out.push((await tools.runTool('t:echo', { a: 1 })).structured);
        return out;`,
    });
    const refused = ['INVALID_ARGUMENT', 'runtime: args of t:echo nest deeper than 512 levels'];
    expect(result.value).toEqual([
      refused,
      refused,
      refused,
      ['INVALID_ARGUMENT', 'runtime: steps[0].args of t:echo nest deeper than 512 levels'],
      { a: 1 },
    ]);
    expect(calls.count).toBe(1);
    expect(result.toolCalls.map((call) => call.args)).toEqual([{ a: 1 }]);
  });

  it('passes 512 levels of arguments and 500 of results through whole', async () => {
    const result = await exec.executeCode({
      code: `${NEST} ${DEPTH}
        const args = depth((await tools.runTool('t:echo', nest(512))).structured);
        const back = (await tools.runTool('t:nest', { levels: 500 })).structured;
        return [args, depth(back)];`,
    });
    expect(result.value).toEqual([512, 500]);
  });

  it('fails a tool call whose result nests too deep with a PROTOCOL error the snippet sees, never a cut value', async () => {
    const result = await exec.executeCode({
      code: `${DEPTH}
        const out = [];
        try { await tools.runTool('t:nest', { levels: 1000 }); out.push('delivered'); } catch (e) { out.push([e.code, e.message, e.details]); }
        try { await tools.runChain([{ toolId: 't:nest', args: { levels: 600 } }]); out.push('delivered'); } catch (e) { out.push([e.code, e.message, e.details]); }
        const chain = await tools.runChain([{ toolId: 't:nest', args: { levels: 512 } }]);
        out.push(depth(chain.result.structured), depth(chain.steps[0].result.structured));
        return out;`,
    });
    const refused = [
      'PROTOCOL',
      'runtime: protocol error: a value in the reply nests deeper than 512 levels',
      { limit: 'depth', maxDepth: 512 },
    ];
    expect(result.value).toEqual([refused, refused, 512, 512]);
  });
});

/** Arguments a snippet cannot send: coded errors, as for every other bad argument. */
describe('code mode: tool arguments that are not JSON', () => {
  const exec = createExec({ tools, poolSize: 1 });
  afterAll(() => exec.close());

  it('rejects BigInt and cyclic arguments and a chain that is not an array with INVALID_ARGUMENT', async () => {
    const result = await exec.executeCode({
      code: `const out = [];
        const cyclic = {}; cyclic.self = cyclic;
        for (const args of [{ a: 1n }, cyclic]) {
          try { await tools.runTool('t:echo', args); out.push('sent'); } catch (e) { out.push([e.code, e.message.split(':')[1]]); }
        }
        try { await tools.runChain({ 0: { toolId: 't:echo' }, length: 1 }); out.push('ran'); } catch (e) { out.push([e.code, e.message]); }
        return out;`,
    });
    expect(result.value).toEqual([
      ['INVALID_ARGUMENT', ' the request cannot be sent as JSON'],
      ['INVALID_ARGUMENT', ' the request cannot be sent as JSON'],
      ['INVALID_ARGUMENT', 'runtime: steps must be an array of chain steps'],
    ]);
    expect(result.toolCalls).toEqual([]);
  });
});
