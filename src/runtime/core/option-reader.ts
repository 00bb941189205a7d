/**
 * The one reader of backend options: each method checks one option and resolves its default, and
 * every bad option fails the same way (`CONFIGURATION`, `details: { field, option, value }`, `field` and
 * `option` both the option's name).
 */
import type { ToolexecError } from '../../model/index.js';
import { runtimeErrors } from './errors.js';

/** A `CONFIGURATION` error naming a backend option: `runtime: option <backend> <option> <problem>`. */
export function optionError(backend: string, option: string, problem: string, value: unknown): ToolexecError {
  return runtimeErrors.configuration(`${backend} ${option}`, problem, { details: { field: option, option, value } });
}

/**
 * Reads the options of one backend: each method checks one option and returns it, or its
 * default when absent. @throws `CONFIGURATION` for an option of the wrong type.
 */
export class OptionReader<Options extends object> {
  readonly #backend: string;
  readonly #options: Options;

  constructor(backend: string, options: Options) {
    this.#backend = backend;
    this.#options = options;
  }

  /** The option as given (unchecked). */
  raw(name: keyof Options & string): unknown {
    return this.#options[name];
  }

  /** A `CONFIGURATION` error naming option `name` of this backend. */
  error(name: string, problem: string, value: unknown): ToolexecError {
    return optionError(this.#backend, name, problem, value);
  }

  /** A string option, or `fallback` when absent or empty. */
  string(name: keyof Options & string, fallback: string): string {
    const value = this.raw(name);
    if (value === undefined || value === '') return fallback;
    if (typeof value !== 'string') throw this.error(name, 'must be a string', value);
    return value;
  }

  /** A positive integer option, or `fallback` when absent. */
  positiveInteger(name: keyof Options & string, fallback: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw this.error(name, 'must be a positive integer', value);
    return value;
  }

  /**
   * An integer option from 1 to `max`, or `fallback` when absent (`must be an integer between 1
   * and <max>`).
   */
  integerUpTo(name: keyof Options & string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) {
      throw this.error(name, `must be an integer between 1 and ${max}`, value);
    }
    return value;
  }

  /** A non-negative integer option, or `fallback` when absent. */
  nonNegativeInteger(name: keyof Options & string, fallback: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw this.error(name, 'must be a non-negative integer', value);
    return value;
  }

  /** A boolean option, or `fallback` when absent. */
  boolean(name: keyof Options & string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw this.error(name, 'must be a boolean', value);
    return value;
  }

  /** An injected object that must have the named methods, or `undefined` when absent. */
  object<T>(name: keyof Options & string, methods: readonly string[]): T | undefined {
    const value = this.raw(name);
    if (value === undefined || value === null) return undefined;
    for (const method of methods) {
      if (typeof (value as Record<string, unknown>)[method] !== 'function') {
        throw this.error(name, `must implement ${method}()`, typeof value);
      }
    }
    return value as T;
  }
}
