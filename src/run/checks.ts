import type { SchemaValidator, Tool, ToolBackend, ToolSchemaChecks } from '../model/index.js';
import { noop } from '../model/internal.js';
import { isPromiseLike } from './async-values.js';
import { asyncValidatorError, schemaToolError } from './failures.js';
import type { OutputValidationMode, ResolvedRunnerOptions } from './options.js';
import type { Resolved } from './resolution.js';
import type { RunWarning } from './types.js';

/**
 * Schema checks of a call: the input before dispatch, the result after, through the validator's
 * checks bound to the tool ({@link SchemaValidator.forTool}), made on first use and kept with the
 * resolution.
 *
 * @internal
 */
export class SchemaChecks {
  readonly #validator: SchemaValidator;
  /** Whether arguments are checked. */
  readonly input: boolean;
  readonly #output: OutputValidationMode;
  readonly #warn: (warning: RunWarning) => void;

  /** `warn` is told of a result that breaks the output schema in `'warn'` mode. */
  constructor(options: ResolvedRunnerOptions, warn: (warning: RunWarning) => void) {
    this.#validator = options.validator;
    this.input = options.validateInput;
    this.#output = options.validateOutput;
    this.#warn = warn;
  }

  /**
   * Throws VALIDATION when `args` do not match the tool's input schema; CONFIGURATION when the
   * validator answers with a promise (see {@link synchronousAnswer}).
   */
  checkInput(toolId: string, resolved: Resolved, backend: ToolBackend, args: Record<string, unknown>): void {
    const checks = resolved.checks ?? this.#bind(resolved);
    let answer: unknown;
    try {
      answer = checks.validateInput(args);
    } catch (err) {
      throw schemaToolError('VALIDATION', toolId, backend, err);
    }
    if (answer !== undefined) synchronousAnswer('validateInput', toolId, backend, answer);
  }

  /** Throws OUTPUT_VALIDATION (or, in `'warn'` mode, reports it) when `value` does not match the output schema. */
  checkOutput(toolId: string, resolved: Resolved, backend: ToolBackend, value: unknown): void {
    if (this.#output === 'off') return;
    const checks = resolved.checks ?? this.#bind(resolved);
    let answer: unknown;
    try {
      answer = checks.validateOutput(value);
    } catch (err) {
      this.#outputFailure(toolId, backend, err);
      return;
    }
    if (answer !== undefined) synchronousAnswer('validateOutput', toolId, backend, answer);
  }

  #outputFailure(toolId: string, backend: ToolBackend, err: unknown): void {
    const error = schemaToolError('OUTPUT_VALIDATION', toolId, backend, err);
    if (this.#output === 'error') throw error;
    this.#warn({ toolId, backend, error });
  }

  #bind(resolved: Resolved): ToolSchemaChecks {
    const checks = boundChecks(this.#validator, resolved.tool);
    resolved.checks = checks;
    return checks;
  }
}

/**
 * A validator's check answers by returning (valid) or throwing (invalid). One that returns a
 * promise (an `async` method type-checks, since it is assignable to a `void` one) would turn the
 * check off and leave its rejection unhandled: its rejection is observed here (dropped) and the
 * call fails with CONFIGURATION naming the method. Any other value returned is ignored. Read only
 * when the check returned something, so the usual `undefined` costs one comparison.
 */
function synchronousAnswer(method: 'validateInput' | 'validateOutput', toolId: string, backend: ToolBackend, answer: unknown): void {
  let thenable: boolean;
  try {
    thenable = isPromiseLike(answer);
    if (thenable) (answer as PromiseLike<unknown>).then(undefined, noop);
  } catch (err) {
    throw asyncValidatorError(method, toolId, backend, err);
  }
  if (thenable) throw asyncValidatorError(method, toolId, backend, undefined);
}

/**
 * The validator's checks bound to `tool`, or, for a validator without `forTool` (or one whose
 * `forTool` fails), checks that call it with the tool each time.
 */
function boundChecks(validator: SchemaValidator, tool: Tool): ToolSchemaChecks {
  if (typeof validator.forTool === 'function') {
    try {
      const checks = validator.forTool(tool);
      if (
        checks !== null &&
        typeof checks === 'object' &&
        typeof checks.validateInput === 'function' &&
        typeof checks.validateOutput === 'function'
      ) {
        return checks;
      }
    } catch {
      // The plain methods below report whatever made binding fail, at the step it belongs to.
    }
  }
  return {
    validateInput: (args) => validator.validateInput(tool, args),
    validateOutput: (value) => validator.validateOutput(tool, value),
  };
}
