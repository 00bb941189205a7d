/**
 * Components: a WebAssembly component of the world `toolexec:sandbox/guest` (the package's
 * `wit/toolexec-sandbox.wit`) runs in the wasm sandbox and calls a tool through the gateway.
 *
 *   node --import tsx examples/component/main.ts
 *
 * Real guests come from Rust (cargo-component), JavaScript (componentize-qjs) or Python
 * (componentize-py) — see docs/guests.md. To run as-is, this example builds a tiny one at start: a
 * core module written in WebAssembly text, given the WIT world and wrapped as a component with jco
 * (`@bytecodealliance/jco`, the optional peer the backend transpiles components with). The guest's
 * `run` passes its input to `call-tool("math:square", input)` and returns that call's result.
 */
import { readFileSync } from 'node:fs';
import { createDocStore, createToolIndex } from 'toolexec/discovery';
import { defineTool, localBackend } from 'toolexec/model';
import { createRunner } from 'toolexec/run';
import { createDirectGateway, createRuntime } from 'toolexec/runtime';
import { check, json, runExample, show } from '../shared/report.js';

const index = createToolIndex();
index.registerTool(
  defineTool({
    namespace: 'math',
    name: 'square',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  }),
  localBackend('square'),
);
const gateway = () =>
  createDirectGateway({
    index,
    docs: createDocStore({ index }),
    runner: createRunner({ index, local: { square: ({ n }) => (n as number) ** 2 } }),
  });

/** The guest: canonical-ABI core module. `run(ptr, len)` → address of { tag, ptr, len }. */
const GUEST_WAT = `(module
  (import "toolexec:sandbox/host@0.1.0" "call-tool" (func $call_tool (param i32 i32 i32 i32 i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (i32.add (local.get 3) (i32.const 8))))
    (block $ok (loop $grow
      (br_if $ok (i32.le_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536))))
      (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1)) (then unreachable))
      (br $grow)))
    (local.get $p))
  (data (i32.const 16) "math:square")
  (func (export "run") (param $input i32) (param $len i32) (result i32)
    (call $call_tool (i32.const 16) (i32.const 11) (local.get $input) (local.get $len) (i32.const 32))
    (i32.const 32)))`;

interface Jco {
  parse(wat: string): Promise<Uint8Array>;
  componentEmbed(options: { binary: Uint8Array; witSource: string; world: string }): Promise<Uint8Array>;
  componentNew(bytes: Uint8Array): Promise<Uint8Array>;
}

async function buildGuest(): Promise<Uint8Array> {
  const jco = (await import('@bytecodealliance/jco')) as Jco;
  const wit = readFileSync(new URL('../../wit/toolexec-sandbox.wit', import.meta.url), 'utf8');
  const core = await jco.parse(GUEST_WAT);
  return jco.componentNew(await jco.componentEmbed({ binary: core, witSource: wit, world: 'guest' }));
}

const runtime = createRuntime(); // standard → the wasm backend, which also runs components

await runExample(
  'component',
  async () => {
    const component = await buildGuest();
    show('component', `${component.byteLength} bytes, world toolexec:sandbox/guest`);

    // code may be empty: the component is the program; metadata.input becomes run's JSON argument
    const first = await runtime.execute({ code: '', gateway: gateway(), metadata: { wasm_component: component, input: { n: 12 } } });
    show('structured', json((first.value as { structured?: unknown }).structured));
    show('tool calls', first.toolCalls.map((c) => `${c.toolId} ${json(c.args)}`).join(', '));
    show('backend', `${first.backend.kind} ${first.backend.readiness} (transpiled in ${json(first.backend.details?.transpileMs)} ms)`);
    check((first.value as { structured?: unknown }).structured === 144, 'math:square of 12 through the component');

    const again = await runtime.execute({ code: '', gateway: gateway(), metadata: { wasm_component: component, input: { n: 7 } } });
    show(
      'cached',
      `value ${json((again.value as { structured?: unknown }).structured)}, transpiled in ${json(again.backend.details?.transpileMs)} ms`,
    );
    check(again.backend.details?.transpileMs === 0, 'the second run reuses the transpiled component');
  },
  () => runtime.close(),
);
