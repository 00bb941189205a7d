/**
 * Where a request carries a WebAssembly component (`metadata.wasm_component`) and the checks its
 * bytes must pass before anything compiles them.
 */
import { runtimeError } from '../../../core/errors.js';

/** The metadata key of a component: bytes (Uint8Array, Buffer, ArrayBuffer) or a base64 string. */
export const COMPONENT_METADATA_KEY = 'wasm_component';

/** The preamble of a binary component: `\0asm`, version 0x0d, layer 1. */
const COMPONENT_PREAMBLE = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function invalidComponent(message: string, details: Record<string, unknown> = {}): Error {
  return runtimeError('INVALID_ARGUMENT', `invalid WebAssembly component: ${message}`, {
    details: { field: `metadata.${COMPONENT_METADATA_KEY}`, ...details },
  });
}

/** True when `metadata` names a component (even an invalid one: the wasm backend then reports it). */
export function hasComponent(metadata: Record<string, unknown> | undefined): boolean {
  if (metadata === undefined || metadata === null || typeof metadata !== 'object') return false;
  const value = metadata[COMPONENT_METADATA_KEY];
  return value !== undefined && value !== null;
}

/**
 * The component a request carries, or `undefined` when it carries none.
 *
 * @throws `INVALID_ARGUMENT` for a value that is not bytes or base64, a component over `maxBytes`,
 * a core module (which belongs in `metadata.wasm_module`) or bytes that are not a component.
 */
export function componentBytes(metadata: Record<string, unknown> | undefined, maxBytes: number): Uint8Array | undefined {
  if (!hasComponent(metadata)) return undefined;
  const value = (metadata as Record<string, unknown>)[COMPONENT_METADATA_KEY];
  let bytes: Uint8Array;
  if (value instanceof Uint8Array) bytes = value;
  else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
  else if (typeof value === 'string') {
    const compact = value.replace(/\s+/g, '');
    const unpadded = compact.replace(/=+$/, '');
    if (!BASE64.test(compact) || unpadded.length % 4 === 1) throw invalidComponent('the base64 text is not valid');
    bytes = new Uint8Array(Buffer.from(unpadded, 'base64'));
  } else {
    throw invalidComponent('it must be bytes (Uint8Array, Buffer, ArrayBuffer) or a base64 string');
  }
  if (bytes.byteLength > maxBytes) {
    throw invalidComponent(`it is ${bytes.byteLength} bytes, over the ${maxBytes}-byte limit`, { maxBytes });
  }
  const magic = bytes.byteLength >= 8 && COMPONENT_PREAMBLE.every((b, i) => i >= 4 || bytes[i] === b);
  if (!magic) throw invalidComponent('the bytes do not start with the WebAssembly magic (00 61 73 6d)');
  if (!COMPONENT_PREAMBLE.every((b, i) => bytes[i] === b)) {
    throw invalidComponent('this is a core WebAssembly module, not a component (run a WASI module with metadata.wasm_module)');
  }
  return bytes;
}
