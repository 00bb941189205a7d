/**
 * Hand-assembled WASI preview1 command modules for the raw-WASI tests (no wabt on CI): a minimal
 * binary encoder and the modules the tests run.
 */

function u32(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

function i32(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

function str(text: string): number[] {
  const bytes = [...Buffer.from(text, 'utf8')];
  return [...u32(bytes.length), ...bytes];
}

function vec(items: number[][]): number[] {
  return [...u32(items.length), ...items.flat()];
}

function section(id: number, payload: number[]): number[] {
  return [id, ...u32(payload.length), ...payload];
}

const I32 = 0x7f;
const WASI = 'wasi_snapshot_preview1';

/** Instructions. */
export const op = {
  i32Const: (value: number) => [0x41, ...i32(value)],
  i32Store: [0x36, 0x02, 0x00],
  i32Load: [0x28, 0x02, 0x00],
  call: (index: number) => [0x10, ...u32(index)],
  drop: [0x1a],
  memoryGrow: [0x40, 0x00],
  i32Eqz: [0x45],
  ifEmpty: [0x04, 0x40],
  else: [0x05],
  end: [0x0b],
  loop: [0x03, 0x40],
  br: (depth: number) => [0x0c, ...u32(depth)],
};

interface FuncType {
  params: number;
  results: number;
}

/** What a module is made of. */
export interface ModuleSpec {
  /** WASI imports: name and signature (i32 params / results). */
  imports: { name: string; type: FuncType; module?: string }[];
  /** Memory limits in pages (`max` omitted: no maximum). */
  memory: { min: number; max?: number };
  /** `_start`'s body (without the final `end`). */
  start: number[];
  /** Data segments. */
  data?: { offset: number; text: string }[];
}

/** Encodes a WASI command module: the imports, one memory (exported), `_start`. */
export function assemble(spec: ModuleSpec): Uint8Array {
  const types: FuncType[] = [];
  const typeIndex = (type: FuncType) => {
    const found = types.findIndex((t) => t.params === type.params && t.results === type.results);
    if (found !== -1) return found;
    types.push(type);
    return types.length - 1;
  };
  const importEntries = spec.imports.map((entry) => [
    ...str(entry.module ?? WASI),
    ...str(entry.name),
    0x00,
    ...u32(typeIndex(entry.type)),
  ]);
  const startType = typeIndex({ params: 0, results: 0 });
  const typeSection = vec(
    types.map((t) => [0x60, ...vec(Array.from({ length: t.params }, () => [I32])), ...vec(Array.from({ length: t.results }, () => [I32]))]),
  );
  const limits = spec.memory.max === undefined ? [0x00, ...u32(spec.memory.min)] : [0x01, ...u32(spec.memory.min), ...u32(spec.memory.max)];
  const startIndex = spec.imports.length;
  const body = [0x00, ...spec.start, ...op.end];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, typeSection),
    ...section(2, vec(importEntries)),
    ...section(3, vec([u32(startType)])),
    ...section(5, vec([limits])),
    ...section(
      7,
      vec([
        [...str('memory'), 0x02, 0x00],
        [...str('_start'), 0x00, ...u32(startIndex)],
      ]),
    ),
    ...section(10, vec([[...u32(body.length), ...body]])),
    ...(spec.data === undefined ? [] : section(11, vec(spec.data.map((d) => [0x00, ...op.i32Const(d.offset), ...op.end, ...str(d.text)])))),
  ];
  return Uint8Array.from(bytes);
}

const FD_WRITE = { name: 'fd_write', type: { params: 4, results: 1 } };

/** `fd_write(fd, iovec at 0 → (ptr, len), 1, nwritten at 8)`, result dropped. */
function write(fd: number, ptr: number, len: number): number[] {
  return [
    ...op.i32Const(0),
    ...op.i32Const(ptr),
    ...op.i32Store,
    ...op.i32Const(4),
    ...op.i32Const(len),
    ...op.i32Store,
    ...op.i32Const(fd),
    ...op.i32Const(0),
    ...op.i32Const(1),
    ...op.i32Const(8),
    ...op.call(0),
    ...op.drop,
  ];
}

/** Prints "hello\n" on stdout and "oops\n" on stderr, then returns (exit code 0). */
export function helloModule(): Uint8Array {
  return assemble({
    imports: [FD_WRITE],
    memory: { min: 1 },
    data: [
      { offset: 16, text: 'hello\n' },
      { offset: 32, text: 'oops\n' },
    ],
    start: [...write(1, 16, 6), ...write(2, 32, 5)],
  });
}

/** Loops forever. */
export function loopModule(): Uint8Array {
  return assemble({ imports: [], memory: { min: 1 }, start: [...op.loop, ...op.br(0), ...op.end] });
}

/** Prints "x" * 64 in a loop forever. */
export function floodModule(): Uint8Array {
  return assemble({
    imports: [FD_WRITE],
    memory: { min: 1 },
    data: [{ offset: 64, text: 'x'.repeat(64) }],
    start: [...op.loop, ...write(1, 64, 64), ...op.br(0), ...op.end],
  });
}

/** Calls `proc_exit(code)`. */
export function exitModule(code: number): Uint8Array {
  return assemble({
    imports: [{ name: 'proc_exit', type: { params: 1, results: 0 } }],
    memory: { min: 1 },
    start: [...op.i32Const(code), ...op.call(0)],
  });
}

/** Grows memory by `pages`; prints "grown\n" when that worked, "denied\n" when memory.grow returned -1. */
export function growModule(pages: number, memory: { min: number; max?: number } = { min: 1 }): Uint8Array {
  return assemble({
    imports: [FD_WRITE],
    memory,
    data: [
      { offset: 16, text: 'grown\n' },
      { offset: 32, text: 'denied\n' },
    ],
    start: [
      ...op.i32Const(pages),
      ...op.memoryGrow,
      ...op.i32Const(-1),
      0x46 /* i32.eq */,
      ...op.ifEmpty,
      ...write(1, 32, 7),
      ...op.else,
      ...write(1, 16, 6),
      ...op.end,
    ],
  });
}

/** Calls `proc_raise(signal)`; prints "refused\n" when it returned an error, "raised\n" otherwise. */
export function raiseModule(signal: number): Uint8Array {
  return assemble({
    imports: [FD_WRITE, { name: 'proc_raise', type: { params: 1, results: 1 } }],
    memory: { min: 1 },
    data: [
      { offset: 16, text: 'raised\n' },
      { offset: 32, text: 'refused\n' },
    ],
    start: [
      ...op.i32Const(signal),
      ...op.call(1),
      ...op.i32Eqz,
      ...op.ifEmpty,
      ...write(1, 16, 7),
      ...op.else,
      ...write(1, 32, 8),
      ...op.end,
    ],
  });
}

/** Imports a function the sandbox does not provide. */
export function foreignImportModule(): Uint8Array {
  return assemble({
    imports: [{ module: 'env', name: 'escape', type: { params: 0, results: 0 } }],
    memory: { min: 1 },
    start: [...op.call(0)],
  });
}
