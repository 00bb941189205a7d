/**
 * Failures of `oneOf` / `anyOf` explained: an enum spelled as a union, a discriminated union
 * (the value's own discriminator picks the branch), the only variant that fits the value's JSON
 * type, else the candidates.
 */
import type { ErrorObject } from 'ajv';
import {
  cutPointer,
  describeSchema,
  fieldLabel,
  findDiscriminator,
  pinnedValue,
  resolveLocal,
  scalar,
  segment,
  show,
  showList,
} from './schema-description.js';
import type { ViolationCode } from './schema.js';
import { isPlainObject, jsonTypeOf, safeJson } from './schema-source.js';
import type { ViolationSink } from './violation-sink.js';

/** Params of the explaining `oneOf` / `anyOf` errors (the explaining Ajv's, and the spec engine's once grouped). */
export interface CompositeParams {
  /** Indexes of the branches the value matched. */
  passing: number[];
  /** Per branch: its own errors, or `null` when it matched. */
  branches: (ErrorObject[] | null)[];
}

/** Explains a failing `oneOf` / `anyOf` error into `sink`. */
export function explainComposite(sink: ViolationSink, error: ErrorObject, keyword: 'oneOf' | 'anyOf'): void {
  const field = cutPointer(error.instancePath);
  const label = `Field '${fieldLabel(field)}'`;
  const params = error.params as Partial<CompositeParams> & { passingSchemas?: unknown };
  const branches = Array.isArray(error.schema) ? (error.schema as unknown[]) : [];
  const value = sink.value(error);
  const actual = jsonTypeOf(value);
  const branchErrors = Array.isArray(params.branches) ? params.branches : undefined;

  if (keyword === 'oneOf') {
    const passing = Array.isArray(params.passing)
      ? params.passing
      : Array.isArray(params.passingSchemas)
        ? (params.passingSchemas as unknown[])
        : [];
    if (passing.length > 1) {
      sink.add(
        'ConstraintViolation',
        field,
        `${label} must match exactly one oneOf variant, but it matches variants ${passing.join(' and ')}.`,
        {
          expected: branches.map((branch) => describeSchema(branch, sink.root)),
          actual,
          keyword,
        },
      );
      return;
    }
  }
  if (branches.length === 0 || branchErrors === undefined) {
    sink.add(
      'ConstraintViolation',
      field,
      `${label} must match ${keyword === 'oneOf' ? 'exactly one' : 'at least one'} of the ${keyword} variants.`,
      {
        actual,
        keyword,
      },
    );
    return;
  }

  // Every branch is a fixed value: this is an enum spelled as a union.
  const resolved = branches.map((branch) => resolveLocal(branch, sink.root));
  const pinned = resolved.map((branch) =>
    isPlainObject(branch) && Array.isArray(branch.enum) ? { values: branch.enum as unknown[] } : pinnedValueList(branch),
  );
  if (pinned.every((entry) => entry !== undefined)) {
    const allowed: unknown[] = [];
    const seen = new Set<string>();
    for (const entry of pinned) {
      for (const item of entry?.values ?? []) {
        const key = safeJson(item);
        if (!seen.has(key)) {
          seen.add(key);
          allowed.push(item);
        }
      }
    }
    if (!seen.has(safeJson(value))) {
      sink.add('InvalidEnumValue', field, `${label} must be one of ${showList(allowed)}, got ${show(value)}.`, {
        allowed,
        actual: scalar(value),
        keyword,
      });
      return;
    }
  }

  // Variants told apart by a pinned property: the value's own discriminator picks the branch.
  const discriminator = findDiscriminator(branches, sink.root);
  if (discriminator !== undefined && isPlainObject(value)) {
    const { property, values, branchValues } = discriminator;
    const discriminatorField = `${field}/${segment(property)}`;
    if (Object.hasOwn(value, property)) {
      const given = safeJson(value[property]);
      const selected = branchValues.findIndex((candidates) => candidates.some((candidate) => safeJson(candidate) === given));
      const selectedErrors = selected >= 0 ? branchErrors[selected] : undefined;
      if (selectedErrors && selectedErrors.length > 0) {
        sink.addAll(selectedErrors);
        return;
      }
      if (selected < 0) {
        sink.add(
          'DiscriminatorMismatch',
          discriminatorField,
          `Field '${discriminatorField}' must be one of ${showList(values)} (it selects the variant), got ${show(value[property])}.`,
          {
            expected: branches.map((branch) => describeSchema(branch, sink.root)),
            allowed: values,
            actual: scalar(value[property]),
            keyword,
          },
        );
        return;
      }
    } else {
      sink.add(
        'DiscriminatorMismatch',
        discriminatorField,
        `Field '${discriminatorField}' is required to select a variant; it must be one of ${showList(values)}.`,
        {
          expected: branches.map((branch) => describeSchema(branch, sink.root)),
          allowed: values,
          keyword,
        },
      );
      return;
    }
  }

  // Only one variant accepts this JSON type: its own errors are the useful ones.
  const fitting: number[] = [];
  branchErrors.forEach((errors, index) => {
    if (errors === null) return;
    const wrongType = errors.some((e) => e.instancePath === error.instancePath && (e.keyword === 'type' || e.keyword === 'false schema'));
    if (!wrongType) fitting.push(index);
  });
  const only = fitting.length === 1 && branches.length > 1 ? branchErrors[fitting[0] as number] : undefined;
  if (only && only.length > 0) {
    sink.addAll(only);
    return;
  }

  // The code says what kind of miss it is: a JSON type no variant takes, a value a discriminated
  // union could not place, or constraints of untagged variants (each fits the type, none the rest).
  const code: ViolationCode =
    fitting.length === 0 ? 'InvalidType' : discriminator !== undefined ? 'DiscriminatorMismatch' : 'ConstraintViolation';
  const candidates = branches.map((branch) => describeSchema(branch, sink.root));
  sink.add(
    code,
    field,
    `${label} must match ${keyword === 'oneOf' ? 'exactly one' : 'at least one'} of these variants: ${candidates.join(' | ')}; got ${actual}.`,
    { expected: candidates, actual, keyword },
  );
}

function pinnedValueList(schema: unknown): { values: unknown[] } | undefined {
  const pinned = pinnedValue(schema);
  return pinned === undefined ? undefined : { values: [pinned.value] };
}
