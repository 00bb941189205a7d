/**
 * The intrinsics the in-sandbox code calls, captured when a guest bundle loads, before any snippet
 * runs. A snippet shares its realm with the guest and may replace any of them (`JSON.parse`,
 * `Map.prototype.get`, `Promise.prototype.then`, ...); the guest keeps working with these copies.
 */
/* eslint-disable @typescript-eslint/unbound-method -- methods are captured to be called through `apply` with their receiver */

/** `Reflect.apply`, captured. */
export const apply = Reflect.apply;
/** `JSON.parse`, captured. */
export const JSONParse = JSON.parse;
/** `JSON.stringify`, captured. */
export const JSONStringify = JSON.stringify;
/** `String`, captured. */
export const GuestString = String;
/** `Number`, captured. */
export const GuestNumber = Number;
/** `Error`, captured. */
export const GuestError = Error;
/**
 * `Error.captureStackTrace`, captured (V8 and QuickJS both have it): records the stack on an object
 * without making an `Error`, leaving out the frames from a given function up.
 */
export const captureStackTrace = (
  Error as unknown as { captureStackTrace: (target: object, omitFrom?: (...args: never[]) => unknown) => void }
).captureStackTrace;
/** `TypeError`, captured. */
export const GuestTypeError = TypeError;
/** `Promise`, captured. */
export const GuestPromise = Promise;
/** `Map`, captured. */
export const GuestMap = Map;
/** `Set`, captured. */
export const GuestSet = Set;
/** `Set.prototype.forEach`, captured. */
export const setForEach = Set.prototype.forEach;
/** `Object.keys`, captured. */
export const objectKeys = Object.keys;
/** `Object.is`, captured. */
export const objectIs = Object.is;
/** `WeakMap`, captured. */
export const GuestWeakMap = WeakMap;
/** `Array.isArray`, captured. */
export const isArray = Array.isArray;
/** `Proxy`, captured. */
export const GuestProxy = Proxy;
/** `Reflect.get`, captured. */
export const reflectGet = Reflect.get;
/** `Object.freeze`, captured. */
export const freeze = Object.freeze;
/** `Object.defineProperty`, captured. */
export const defineProperty = Object.defineProperty;
/** `Math.floor`, captured. */
export const floor = Math.floor;
/** `Promise.prototype.then`, captured. */
export const promiseThen = Promise.prototype.then;
/** `Promise.reject`, captured. */
export const promiseReject = Promise.reject;
/** `Map.prototype.get`, captured. */
export const mapGet = Map.prototype.get;
/** `Map.prototype.set`, captured. */
export const mapSet = Map.prototype.set;
/** `Map.prototype.has`, captured. */
export const mapHas = Map.prototype.has;
/** `Map.prototype.forEach`, captured. */
export const mapForEach = Map.prototype.forEach;
/** `Map.prototype.delete`, captured. */
export const mapDelete = Map.prototype.delete;
/** `WeakMap.prototype.get`, captured. */
export const weakMapGet = WeakMap.prototype.get;
/** `WeakMap.prototype.set`, captured. */
export const weakMapSet = WeakMap.prototype.set;
/** `String.prototype.slice`, captured. */
export const stringSlice = String.prototype.slice;
/** `String.prototype.indexOf`, captured. */
export const stringIndexOf = String.prototype.indexOf;

const perf = performance;
const perfNow = perf.now;

/** `performance.now()` through the captured function. */
export function now(): number {
  return apply(perfNow, perf, []);
}

/** `map.get(key)` through the captured method. */
export function getIn<K, V>(map: Map<K, V>, key: K): V | undefined {
  const value: V | undefined = apply(mapGet, map, [key]);
  return value;
}

/** `map.set(key, value)` through the captured method. */
export function setIn<K, V>(map: Map<K, V>, key: K, value: V): void {
  apply(mapSet, map, [key, value]);
}

/** `map.has(key)` through the captured method. */
export function hasIn<K, V>(map: Map<K, V>, key: K): boolean {
  const found: boolean = apply(mapHas, map, [key]);
  return found;
}

/** `map.delete(key)` through the captured method. */
export function deleteIn<K, V>(map: Map<K, V>, key: K): void {
  apply(mapDelete, map, [key]);
}

/** `text.slice(start, end)` through the captured method. */
export function sliceOf(text: string, start: number, end?: number): string {
  const slice: string = apply(stringSlice, text, end === undefined ? [start] : [start, end]);
  return slice;
}

/** `text.indexOf(search)` through the captured method. */
export function indexIn(text: string, search: string): number {
  const index: number = apply(stringIndexOf, text, [search]);
  return index;
}
