/**
 * Failures of the bounds and shape keywords (`minimum`, `maxLength`, `pattern`, `minItems`,
 * `contains`, `not`, `propertyNames`, ...) explained as `ConstraintViolation`s.
 */
import type { ErrorObject } from 'ajv';
import { describeSchema, plural, scalar, show, text } from './schema-description.js';
import { isPlainObject } from './schema-source.js';
import type { ViolationSink } from './violation-sink.js';

/** Explains a failing bounds or shape keyword (any keyword the collector has no case of) into `sink`. */
export function explainConstraint(
  sink: ViolationSink,
  error: ErrorObject,
  field: string,
  label: string,
  params: Record<string, unknown>,
): void {
  const keyword = error.keyword;
  const value = sink.value(error);
  const actual = scalar(value);
  const add = (expected: string, message: string, extraActual: unknown = actual) =>
    sink.add('ConstraintViolation', field, `${label} ${message}.`, { expected, actual: extraActual, keyword });
  switch (keyword) {
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      add(`${keyword} ${text(params.limit)}`, `must be ${text(params.comparison)} ${text(params.limit)}, got ${show(value)}`);
      return;
    }
    case 'multipleOf':
      add(`multipleOf ${text(params.multipleOf)}`, `must be a multiple of ${text(params.multipleOf)}, got ${show(value)}`);
      return;
    case 'minLength':
    case 'maxLength': {
      const length = typeof value === 'string' ? [...value].length : undefined;
      const bound = keyword === 'minLength' ? 'at least' : 'at most';
      add(
        `${keyword} ${text(params.limit)}`,
        `must be ${bound} ${plural(params.limit, 'character', 'characters')} long${length === undefined ? '' : `, got ${length}`}`,
        length,
      );
      return;
    }
    case 'pattern':
      add(`pattern ${text(params.pattern)}`, `must match the pattern ${text(params.pattern)}, got ${show(value)}`);
      return;
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties': {
      const items = keyword.endsWith('Items');
      const count = items
        ? Array.isArray(value)
          ? value.length
          : undefined
        : isPlainObject(value)
          ? Object.keys(value).length
          : undefined;
      const bound = keyword.startsWith('min') ? 'at least' : 'at most';
      const noun = items ? plural(params.limit, 'item', 'items') : plural(params.limit, 'property', 'properties');
      add(`${keyword} ${text(params.limit)}`, `must have ${bound} ${noun}${count === undefined ? '' : `, got ${count}`}`, count);
      return;
    }
    case 'uniqueItems':
      add('uniqueItems', `must not contain duplicate items (items ${text(params.j)} and ${text(params.i)} are equal)`, undefined);
      return;
    case 'items':
    case 'additionalItems':
    case 'unevaluatedItems':
      add(
        `${keyword} false`,
        `must have at most ${plural(params.limit, 'item', 'items')}${Array.isArray(value) ? `, got ${value.length}` : ''}`,
        undefined,
      );
      return;
    case 'contains': {
      const min = params.minContains;
      const max = params.maxContains;
      const summary = describeSchema(error.schema, sink.root);
      const wanted = max === undefined ? `at least ${text(min)}` : `at least ${text(min)} and at most ${text(max)}`;
      add(
        `contains ${summary}`,
        `must contain ${wanted} ${max === 1 || (max === undefined && min === 1) ? 'item' : 'items'} matching ${summary}`,
        undefined,
      );
      return;
    }
    case 'not': {
      const summary = describeSchema(error.schema, sink.root);
      add(`not ${summary}`, `must not match ${summary}`);
      return;
    }
    case 'propertyNames': {
      const name = text(params.propertyName);
      const summary = describeSchema(error.schema, sink.root);
      add(`propertyNames ${summary}`, `has a property name that is not allowed: ${show(name)} (names must match ${summary})`, scalar(name));
      return;
    }
    default: {
      const bound = error.schema;
      const expected = bound === undefined || typeof bound === 'object' ? keyword : `${keyword} ${show(bound)}`;
      add(expected, error.message ?? `must pass the "${keyword}" keyword`);
    }
  }
}
