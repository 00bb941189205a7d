/**
 * Raw WASI modules for the `wasm` backend: where a request carries one (`metadata.wasm_module` /
 * `wasm_module_b64`), the checks it must pass, and the rewrite of its memory section that caps
 * the linear memory at the run's memory limit.
 */
import { ToolexecError } from '../../../model/index.js';
import { runtimeError } from '../../core/errors.js';

/** The WebAssembly magic bytes: `\0asm`. */
export const WASM_MAGIC = Uint8Array.of(0x00, 0x61, 0x73, 0x6d);

/** One WebAssembly page: 64 KiB. */
export const WASM_PAGE_BYTES = 65536;

const MAX_PAGES = 65536;

function invalidModule(message: string, details: Record<string, unknown> = {}, cause?: unknown): ToolexecError {
  return runtimeError('INVALID_ARGUMENT', `invalid WASI module: ${message}`, {
    details: { field: 'metadata.wasm_module', ...details },
    ...(cause === undefined ? {} : { cause }),
  });
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(text: string, key: string): Uint8Array {
  const compact = text.replace(/\s+/g, '');
  const unpadded = compact.replace(/=+$/, '');
  if (!BASE64.test(compact) || unpadded.length % 4 === 1 || (compact.includes('=') && compact.length % 4 !== 0)) {
    throw invalidModule(`metadata.${key} is not valid base64`, { field: `metadata.${key}` });
  }
  return new Uint8Array(Buffer.from(unpadded, 'base64'));
}

/**
 * The raw module a request carries, or `undefined` when it carries none (a JavaScript run).
 *
 * @remarks `metadata.wasm_module` wins over `metadata.wasm_module_b64`. Bytes may be a Uint8Array
 * (a Buffer), an ArrayBuffer, or a base64 string (standard alphabet, padded or not).
 *
 * @throws `INVALID_ARGUMENT` for any other type, bad base64, a module over `maxBytes`, or bytes
 * without the `\0asm` magic.
 */
export function wasiModuleBytes(metadata: Record<string, unknown> | undefined, maxBytes: number): Uint8Array | undefined {
  if (metadata === undefined || metadata === null || typeof metadata !== 'object') return undefined;
  const hasPlain = metadata.wasm_module !== undefined && metadata.wasm_module !== null;
  const key = hasPlain ? 'wasm_module' : 'wasm_module_b64';
  const value = metadata[key];
  if (value === undefined || value === null) return undefined;
  let bytes: Uint8Array;
  if (value instanceof Uint8Array) bytes = value;
  else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
  else if (typeof value === 'string') bytes = decodeBase64(value, key);
  else throw invalidModule(`metadata.${key} must be bytes (Uint8Array, Buffer) or a base64 string`, { field: `metadata.${key}` });
  if (bytes.byteLength > maxBytes) {
    throw invalidModule(`the module is ${bytes.byteLength} bytes, over the ${maxBytes}-byte limit`, { field: `metadata.${key}`, maxBytes });
  }
  if (bytes.byteLength < 8 || !WASM_MAGIC.every((b, i) => bytes[i] === b)) {
    throw invalidModule('the bytes do not start with the WebAssembly magic (00 61 73 6d)', { field: `metadata.${key}` });
  }
  return bytes;
}

// ---- LEB128 -------------------------------------------------------------------------------------

class Reader {
  offset: number;
  constructor(
    readonly bytes: Uint8Array,
    offset: number,
    readonly end: number,
  ) {
    this.offset = offset;
  }

  byte(): number {
    if (this.offset >= this.end) throw new RangeError('unexpected end of module');
    return this.bytes[this.offset++] as number;
  }

  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift > 35) throw new RangeError('LEB128 value too long');
    }
    if (result > 0xffffffff) throw new RangeError('LEB128 value out of range');
    return result;
  }

  skip(n: number): void {
    if (n < 0 || this.offset + n > this.end) throw new RangeError('unexpected end of module');
    this.offset += n;
  }
}

function leb(value: number): number[] {
  const out: number[] = [];
  let v = value;
  do {
    let b = v % 128;
    v = Math.floor(v / 128);
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}

/** One linear memory a module declares. */
export interface DeclaredMemory {
  /** Initial size in pages. */
  minPages: number;
  /** Declared maximum in pages (after the cap, when it was applied). */
  maxPages?: number;
  /** True for a memory the module imports (the sandbox provides none). */
  imported: boolean;
  /** True when the cap could be written into the module (plain 32-bit, unshared memory). */
  capped: boolean;
}

/** The module after {@link capModuleMemory}. */
export interface CappedModule {
  /** The module's bytes: rewritten when a cap was written, else the input unchanged. */
  bytes: Uint8Array;
  /** Every memory the module imports or defines, in declaration order; empty when it could not be parsed. */
  memories: DeclaredMemory[];
  /** The cap in pages. */
  capPages: number;
  /** True when every memory has a maximum at or under the cap. */
  enforced: boolean;
  /** The largest memory the module can reach, in bytes (the wasm32 ceiling when unbounded). */
  maxMemoryBytes: number;
}

function readLimits(reader: Reader): { flags: number; min: number; max?: number } {
  const flags = reader.byte();
  const min = reader.u32();
  const max = (flags & 0x01) !== 0 ? reader.u32() : undefined;
  return max === undefined ? { flags, min } : { flags, min, max };
}

function skipName(reader: Reader): void {
  reader.skip(reader.u32());
}

/** Reads the import section's memory imports. */
function importedMemories(reader: Reader): DeclaredMemory[] {
  const out: DeclaredMemory[] = [];
  const count = reader.u32();
  for (let i = 0; i < count; i += 1) {
    skipName(reader);
    skipName(reader);
    const kind = reader.byte();
    if (kind === 0) reader.u32();
    else if (kind === 1) {
      reader.byte();
      readLimits(reader);
    } else if (kind === 2) {
      const limits = readLimits(reader);
      out.push({ minPages: limits.min, ...(limits.max === undefined ? {} : { maxPages: limits.max }), imported: true, capped: false });
    } else if (kind === 3) {
      reader.byte();
      reader.byte();
    } else if (kind === 4) {
      reader.byte();
      reader.u32();
    } else throw new RangeError(`unknown import kind ${kind}`);
  }
  return out;
}

/**
 * Rewrites the module's memory section so that no defined memory can grow past `capBytes`
 * (`memory.grow` then returns -1, as for any declared maximum): a memory without a maximum gets
 * one, a larger maximum is lowered. Shared and 64-bit memories are left as declared.
 *
 * @throws `RESOURCE_LIMIT` (`limit: 'memory'`) when a memory's initial size already exceeds the cap.
 * A module that cannot be parsed is returned unchanged (compiling it reports the problem).
 */
export function capModuleMemory(bytes: Uint8Array, capBytes: number): CappedModule {
  const capPages = Math.max(1, Math.min(MAX_PAGES, Math.floor(capBytes / WASM_PAGE_BYTES)));
  const unchanged: CappedModule = { bytes, memories: [], capPages, enforced: false, maxMemoryBytes: MAX_PAGES * WASM_PAGE_BYTES };
  const memories: DeclaredMemory[] = [];
  let rewrite: { start: number; end: number; payload: number[] } | undefined;
  try {
    let offset = 8;
    while (offset < bytes.length) {
      const header = new Reader(bytes, offset, bytes.length);
      const id = header.byte();
      const size = header.u32();
      const start = header.offset;
      const end = start + size;
      if (end > bytes.length) throw new RangeError('section past the end of the module');
      const reader = new Reader(bytes, start, end);
      if (id === 2) memories.push(...importedMemories(reader));
      if (id === 5) {
        const count = reader.u32();
        const payload = leb(count);
        for (let i = 0; i < count; i += 1) {
          const limits = readLimits(reader);
          const plain = limits.flags === 0x00 || limits.flags === 0x01;
          if (plain && limits.min > capPages) {
            throw runtimeError(
              'RESOURCE_LIMIT',
              `resource limit exceeded: memory (the module starts with ${limits.min * WASM_PAGE_BYTES} bytes, over the ${capPages * WASM_PAGE_BYTES}-byte limit)`,
              { details: { limit: 'memory', memoryBytes: capPages * WASM_PAGE_BYTES, moduleMinBytes: limits.min * WASM_PAGE_BYTES } },
            );
          }
          if (plain) {
            const max = Math.min(limits.max ?? capPages, capPages);
            payload.push(0x01, ...leb(limits.min), ...leb(max));
            memories.push({ minPages: limits.min, maxPages: max, imported: false, capped: true });
          } else {
            payload.push(limits.flags, ...leb(limits.min), ...(limits.max === undefined ? [] : leb(limits.max)));
            memories.push({
              minPages: limits.min,
              ...(limits.max === undefined ? {} : { maxPages: limits.max }),
              imported: false,
              capped: false,
            });
          }
        }
        if (reader.offset !== end) throw new RangeError('trailing bytes in the memory section');
        rewrite = { start: offset, end, payload };
      }
      offset = end;
    }
  } catch (err) {
    if (ToolexecError.isInstance(err)) throw err;
    return unchanged;
  }
  let out = bytes;
  if (rewrite !== undefined) {
    const section = [5, ...leb(rewrite.payload.length), ...rewrite.payload];
    out = new Uint8Array(rewrite.start + section.length + (bytes.length - rewrite.end));
    out.set(bytes.subarray(0, rewrite.start), 0);
    out.set(section, rewrite.start);
    out.set(bytes.subarray(rewrite.end), rewrite.start + section.length);
  }
  const bounded = memories.every((m) => m.maxPages !== undefined && (m.capped || m.maxPages <= capPages));
  const maxPages = memories.reduce((most, m) => Math.max(most, m.maxPages ?? MAX_PAGES), 0);
  return {
    bytes: out,
    memories,
    capPages,
    enforced: memories.length > 0 && bounded,
    maxMemoryBytes: (memories.length === 0 ? 0 : maxPages) * WASM_PAGE_BYTES,
  };
}
