/**
 * Guest components for the component tests, built offline at test time: hand-written core modules
 * (WAT, parsed by jco's wasm-tools) given the WIT world and wrapped with jco's component-new, and a
 * JavaScript guest built with componentize-qjs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The WIT world the package ships. */
export const WIT_PATH = fileURLToPath(new URL('../../../../wit/toolexec-sandbox.wit', import.meta.url));
const WIT = readFileSync(WIT_PATH, 'utf8');

interface JcoApi {
  parse(wat: string): Promise<Uint8Array>;
  componentEmbed(options: { binary: Uint8Array; witSource: string; world: string }): Promise<Uint8Array>;
  componentNew(bytes: Uint8Array): Promise<Uint8Array>;
}

/** WAT for a string literal (bytes escaped). */
function watString(text: string): string {
  return [...new TextEncoder().encode(text)].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('');
}

/** The result area `run` returns: tag at 32, pointer at 36, length at 40. */
const RESULT = 32;
/** Where the guest's constant data lives. */
const DATA = 64;

/** Options of {@link watGuest}. */
export interface WatGuest {
  /** The body of `run (param $ptr i32) (param $len i32) (result i32)`, ending with the result area's address. */
  body: string;
  /** Constant bytes at {@link DATA}. */
  data?: string;
  /** Initial memory pages. @defaultValue 1 */
  pages?: number;
}

/** A core module of the world `toolexec:sandbox/guest` as WAT. */
export function guestWat({ body, data = '', pages = 1 }: WatGuest): string {
  return `(module
  (import "toolexec:sandbox/host@0.1.0" "call-tool" (func $call (param i32 i32 i32 i32 i32)))
  (import "toolexec:sandbox/host@0.1.0" "search-tools" (func $search (param i32 i32 i32 i32)))
  (memory (export "memory") ${pages})
  (global $heap (mut i32) (i32.const ${Math.max(4096, pages * 65536 - 65536 + 4096)}))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (i32.add (local.get 3) (i32.const 8))))
    (block $ok (loop $grow
      (br_if $ok (i32.le_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536))))
      (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1)) (then unreachable))
      (br $grow)))
    (local.get $p))
  (data (i32.const ${DATA}) "${watString(data)}")
  (func (export "run") (param $ptr i32) (param $len i32) (result i32)
    (local $i i32)
    ${body})
)`;
}

/** `run` returns `ok(text)` or `err(text)` (tag 0 / 1). */
export function constantBody(tag: 0 | 1, text: string): WatGuest {
  const len = new TextEncoder().encode(text).length;
  return {
    data: text,
    body: `(i32.store8 (i32.const ${RESULT}) (i32.const ${tag}))
    (i32.store (i32.const ${RESULT + 4}) (i32.const ${DATA}))
    (i32.store (i32.const ${RESULT + 8}) (i32.const ${len}))
    (i32.const ${RESULT})`,
  };
}

/** `run` calls `call-tool(toolId, input)` `times` times and returns the last call's result as its own. */
export function callToolBody(toolId: string, times = 1): WatGuest {
  const len = new TextEncoder().encode(toolId).length;
  return {
    data: toolId,
    body: `(loop $again
      (call $call (i32.const ${DATA}) (i32.const ${len}) (local.get $ptr) (local.get $len) (i32.const ${RESULT}))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $again (i32.lt_u (local.get $i) (i32.const ${times}))))
    (i32.const ${RESULT})`,
  };
}

/** `run` calls `search-tools(input, limit)` and returns its result. */
export function searchBody(limit: number): WatGuest {
  return { body: `(call $search (local.get $ptr) (local.get $len) (i32.const ${limit}) (i32.const ${RESULT})) (i32.const ${RESULT})` };
}

/** `run` hits `unreachable`. */
export const trapBody: WatGuest = { body: 'unreachable' };

/** `run` grows its memory 1 MiB at a time until refused, then traps (as an allocator does). */
export const memoryBombBody: WatGuest = {
  body: `(block $done (loop $more
      (br_if $done (i32.eq (memory.grow (i32.const 16)) (i32.const -1)))
      (br $more)))
    unreachable`,
};

/** `run` never returns. */
export const runawayBody: WatGuest = { body: '(loop $forever (br $forever)) (i32.const 0)' };

/** `run` returns `ok` of `bytes` NUL characters (its memory's first bytes). */
export function bigResultBody(bytes: number): WatGuest {
  return {
    pages: Math.ceil(bytes / 65536) + 2,
    body: `(i32.store8 (i32.const ${RESULT}) (i32.const 0))
    (i32.store (i32.const ${RESULT + 4}) (i32.const 65536))
    (i32.store (i32.const ${RESULT + 8}) (i32.const ${bytes}))
    (i32.const ${RESULT})`,
  };
}

let jco: Promise<JcoApi> | undefined;

/** Builds a component from a WAT guest: parse, embed the WIT world, component-new. */
export async function watComponent(guest: WatGuest): Promise<Uint8Array> {
  jco ??= import('@bytecodealliance/jco') as Promise<JcoApi>;
  const api = await jco;
  const core = await api.parse(guestWat(guest));
  const embedded = await api.componentEmbed({ binary: core, witSource: WIT, world: 'guest' });
  return api.componentNew(embedded);
}

/**
 * Builds a component from JavaScript with componentize-qjs (QuickJS-NG inside the component).
 * `stubWasi: false` leaves its WASI imports in (the sandbox refuses such a component).
 */
export async function jsComponent(source: string, options: { stubWasi?: boolean } = {}): Promise<Uint8Array> {
  const { componentize } = (await import('componentize-qjs')) as {
    componentize: (opts: {
      witPath: string;
      jsSource: string;
      world: string;
      stubWasi: boolean;
      sync: boolean;
    }) => Promise<{ component: Uint8Array }>;
  };
  const { component } = await componentize({
    witPath: WIT_PATH,
    jsSource: source,
    world: 'guest',
    stubWasi: options.stubWasi ?? true,
    sync: true,
  });
  return new Uint8Array(component);
}
