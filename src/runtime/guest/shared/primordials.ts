/**
 * The intrinsics the in-sandbox code calls, captured when a guest bundle loads, before any snippet
 * runs. A snippet shares its realm with the guest and may replace any of them (`JSON.parse`,
 * `Map.prototype.get`, `Promise.prototype.then`, ...); the guest keeps working with these copies.
 */
/* eslint-disable @typescript-eslint/unbound-method -- methods are captured to be called through `apply` with their receiver */

export const apply = Reflect.apply;
export const JSONParse = JSON.parse;
export const JSONStringify = JSON.stringify;
export const GuestString = String;
export const GuestNumber = Number;
export const GuestError = Error;
export const GuestTypeError = TypeError;
export const GuestPromise = Promise;
export const GuestMap = Map;
export const GuestWeakMap = WeakMap;
export const isArray = Array.isArray;
export const freeze = Object.freeze;
export const defineProperty = Object.defineProperty;
export const floor = Math.floor;
export const promiseThen = Promise.prototype.then;
export const promiseReject = Promise.reject;
export const mapGet = Map.prototype.get;
export const mapSet = Map.prototype.set;
export const mapHas = Map.prototype.has;
export const mapDelete = Map.prototype.delete;
export const weakMapGet = WeakMap.prototype.get;
export const weakMapSet = WeakMap.prototype.set;
export const stringSlice = String.prototype.slice;
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
