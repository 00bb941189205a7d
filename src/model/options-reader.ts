/**
 * Reading what a caller hands a public function, written once for every layer: options objects,
 * their fields, and values quoted in messages. Nothing here ever lets a caller's object throw
 * through: a throwing getter, a revoked proxy, a hostile `toString` or a null-prototype object
 * becomes an `INVALID_ARGUMENT` (or is described without being touched), and a value of the wrong
 * type (a 5 MB string where an options object belongs) is refused at once, never spread.
 *
 * @remarks
 * Other layers reach it through `model/internal.ts`. An entry point reads its options with
 * {@link readOptionsObject} and each field with {@link readField} and a field reader
 * ({@link readTimeoutMs}, {@link readDeadline}, {@link readSignal}, ...), all with the layer's error
 * factory, so the same bad value gets the same code and words on every method. A public function
 * that returns a promise wraps its body in {@link rejectOnThrow} so that it never throws synchronously.
 *
 * @internal
 * @module
 */
import { ToolexecError } from './errors.js';
import type { LayerErrors } from './error-factory.js';

/** Longest quote of a caller's string in a message. */
const QUOTE_CHARS = 60;

/**
 * A short, safe description of any value for a message: never calls the value's own `toString`,
 * never reads its properties, never throws (`a string of 5000000 characters`, `an object`, `NaN`).
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    case 'string':
      return value.length <= QUOTE_CHARS ? JSON.stringify(value) : `a string of ${value.length} characters`;
    default:
      if (value === null) return 'null';
      try {
        return Array.isArray(value) ? 'an array' : 'an object';
      } catch {
        return 'a revoked proxy';
      }
  }
}

/** Longest caller's string a message quotes whole. */
const TEXT_CHARS = 200;

/**
 * A caller's value for a message that quotes it: a string as it is (one longer than 200 characters
 * cut there, with its length: a 5 MB tool ID must not make a 5 MB message), anything else as
 * {@link describeValue} says.
 */
export function textOf(value: unknown): string {
  if (typeof value !== 'string') return describeValue(value);
  return value.length <= TEXT_CHARS ? value : `${value.slice(0, TEXT_CHARS)}… (${value.length} characters)`;
}

/** True for an object a caller could have meant as options (not an array, function or primitive). */
function isOptionsObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The options object a caller passed as `name`: `undefined` for `undefined` / `null`, the object
 * itself otherwise; anything else (a string, a number, an array, a function) is `INVALID_ARGUMENT`
 * at once. An array is checked with `Array.isArray`, which a revoked proxy makes throw: that is an
 * `INVALID_ARGUMENT` too.
 */
export function readOptionsObject(errors: LayerErrors, name: string, value: unknown): object | undefined {
  if (value === undefined || value === null) return undefined;
  let ok: boolean;
  try {
    ok = isOptionsObject(value);
  } catch (err) {
    throw errors.invalidArgument(name, 'could not be read (a revoked proxy?)', { cause: err });
  }
  if (!ok) throw errors.invalidArgument(name, `must be an object, got ${describeValue(value)}`);
  return value;
}

/**
 * `object[key]`, where a throwing getter or a revoked proxy becomes `INVALID_ARGUMENT` naming
 * `option <key>` (with the thrown error as `cause`).
 */
export function readField(errors: LayerErrors, object: object, key: string): unknown {
  try {
    return (object as Record<string, unknown>)[key];
  } catch (err) {
    throw errors.invalidArgument(`option ${key}`, 'could not be read', { cause: err });
  }
}

/**
 * A relative budget: a positive number of milliseconds; `Infinity` (or anything above the timer
 * limit) means none. `<= 0`, `NaN` and non-numbers are `INVALID_ARGUMENT`, the same words on every
 * method: `option timeoutMs must be a positive number of milliseconds, got -1`. With `finite`
 * (a sandbox's wall clock), `Infinity` is refused too.
 */
export function readTimeoutMs(errors: LayerErrors, value: unknown, name = 'timeoutMs', finite = false): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0)) {
    throw errors.invalidArgument(`option ${name}`, `must be a positive number of milliseconds, got ${describeValue(value)}`);
  }
  if (finite && value === Infinity) throw errors.invalidArgument(`option ${name}`, 'must be finite here, got Infinity');
  return value;
}

/**
 * An absolute deadline: epoch milliseconds or a `Date`, as epoch milliseconds. One already past is
 * valid here (the call then fails with `TIMEOUT` before any work); `NaN`, `±Infinity`, an invalid
 * `Date` and anything else are `INVALID_ARGUMENT`.
 */
export function readDeadline(errors: LayerErrors, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  let epochMs: unknown = value;
  if (typeof value === 'object' && value !== null) {
    try {
      // `instanceof` asks a proxy for its prototype, which may throw: inside the try too.
      if (value instanceof Date) epochMs = Date.prototype.getTime.call(value);
    } catch (err) {
      throw errors.invalidArgument('option deadline', 'could not be read', { cause: err });
    }
  }
  if (typeof epochMs !== 'number' || !Number.isFinite(epochMs)) {
    throw errors.invalidArgument('option deadline', `must be a Date or a finite number of epoch milliseconds, got ${describeValue(value)}`);
  }
  return epochMs;
}

/** An `AbortSignal` (anything shaped like one), else `INVALID_ARGUMENT`. */
export function readSignal(errors: LayerErrors, value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  let ok: boolean;
  try {
    ok =
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { aborted?: unknown }).aborted === 'boolean' &&
      typeof (value as { addEventListener?: unknown }).addEventListener === 'function' &&
      typeof (value as { removeEventListener?: unknown }).removeEventListener === 'function';
  } catch (err) {
    throw errors.invalidArgument('option signal', 'could not be read', { cause: err });
  }
  if (!ok) throw errors.invalidArgument('option signal', `must be an AbortSignal, got ${describeValue(value)}`);
  return value as AbortSignal;
}

/** A function, else `INVALID_ARGUMENT`. */
export function readFunction<F>(errors: LayerErrors, value: unknown, name: string): F | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'function') throw errors.invalidArgument(`option ${name}`, `must be a function, got ${describeValue(value)}`);
  return value as F;
}

/** A string of 1 to `maxLength` characters, else `INVALID_ARGUMENT`. */
export function readShortString(errors: LayerErrors, value: unknown, name: string, maxLength: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > maxLength) {
    throw errors.invalidArgument(`option ${name}`, `must be a string of 1 to ${maxLength} characters, got ${describeValue(value)}`);
  }
  return value;
}

/**
 * A count such as a search's `limit`: a positive integer, or `Infinity` for all. `0`, negatives,
 * fractions, `NaN` and non-numbers are `INVALID_ARGUMENT`.
 */
export function readLimit(errors: LayerErrors, value: unknown, name: string): number {
  if (typeof value !== 'number' || !(value > 0) || !(Number.isInteger(value) || value === Infinity)) {
    throw errors.invalidArgument(name, `must be a positive integer, got ${describeValue(value)}`);
  }
  return value;
}

/** A string argument (an ID, a query), else `INVALID_ARGUMENT`; never calls the value's `toString`. */
export function readString(errors: LayerErrors, value: unknown, name: string): string {
  if (typeof value !== 'string') throw errors.invalidArgument(name, `must be a string, got ${describeValue(value)}`);
  return value;
}

/**
 * Runs `body` and turns a synchronous throw into a rejected promise, so that a function returning
 * a promise never throws; a throw that is not a {@link ToolexecError} (a caller's object
 * misbehaving where no reader caught it) becomes `INVALID_ARGUMENT` with it as `cause`.
 */
export function rejectOnThrow<T>(errors: LayerErrors, what: string, body: () => Promise<T>): Promise<T> {
  try {
    return body();
  } catch (err) {
    return Promise.reject(asLibraryError(errors, what, err));
  }
}

/**
 * `err` when it is a {@link ToolexecError}, else `INVALID_ARGUMENT` (`<what> could not be read`)
 * with it as `cause`; with `configuration`, `CONFIGURATION` (a factory's options: `option <what>
 * could not be read`).
 */
export function asLibraryError(errors: LayerErrors, what: string, err: unknown, configuration = false): ToolexecError {
  let known = false;
  try {
    known = ToolexecError.isInstance(err);
  } catch {
    // a thrown revoked proxy: not ours
  }
  if (known) return err as ToolexecError;
  return configuration
    ? errors.configuration(what, 'could not be read', { cause: err })
    : errors.invalidArgument(what, 'could not be read', { cause: err });
}

/**
 * Runs the body of a synchronous public function so that only a {@link ToolexecError} leaves it:
 * anything else thrown while reading a caller's object (a throwing getter, a revoked proxy, a
 * value that cannot be cloned) becomes `INVALID_ARGUMENT` (`<what> could not be read`) with it as
 * `cause`; with `configuration` (a factory reading its options), `CONFIGURATION`. The library's
 * own errors pass through unchanged.
 */
export function guardCall<T>(errors: LayerErrors, what: string, body: () => T, configuration = false): T {
  try {
    return body();
  } catch (err) {
    throw asLibraryError(errors, what, err, configuration);
  }
}
