/**
 * Conformance: every case of the official JSON Schema Test Suite (draft 2020-12 and draft-07,
 * required and optional) through `createSchemaValidator().validate`, with the suite's `remotes/`
 * served through the `schemas` option (no network). Optional format files run with
 * `formats: 'assert'`, everything else with the default `'annotate'`.
 *
 * The required part (all but `optional/`) is asserted case by case: right, or refused up front
 * with `INVALID_SCHEMA` naming the construct (only the cases listed in `REFUSED`) — never silently
 * wrong, never another error. The optional part may deviate only as listed in `OPTIONAL_DEVIATIONS`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SchemaValidationError,
  ToolexecError,
  createSchemaValidator,
  type SchemaValidator,
  type ToolSchemaChecks,
  type Tool,
} from '../../src/model/index.js';
import { SchemaCompiler, type CompiledSchema } from '../../src/model/schema-compiler.js';
import { canonicalizeSchema, copySchemaDocument } from '../../src/model/schema-source.js';
import { OPTIONAL_DEVIATIONS, REFUSED } from './json-schema-test-suite.known-failures.js';
import { VIOLATION_CODES } from '../../src/model/internal.js';

const SUITE = fileURLToPath(new URL('../fixtures/jsonschema-test-suite/', import.meta.url));
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

interface SuiteCase {
  readonly id: string;
  readonly file: string;
  readonly schema: unknown;
  readonly data: unknown;
  readonly valid: boolean;
  readonly formats: 'annotate' | 'assert';
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    })
    .filter((path) => path.endsWith('.json'))
    .sort();
}

/** Freezes a parsed JSON value deeply, so any mutation by the validator throws. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

function readJson(path: string): unknown {
  return deepFreeze(JSON.parse(readFileSync(path, 'utf8')) as unknown);
}

const remotesDir = join(SUITE, 'remotes');
const remotes: Record<string, unknown> = {};
for (const path of walk(remotesDir)) remotes[`http://localhost:1234/${relative(remotesDir, path)}`] = readJson(path);

const files = ['draft2020-12', 'draft7'].flatMap((draft) => walk(join(SUITE, 'tests', draft)).map((path) => ({ draft, path })));

function loadCases(draft: string, path: string): SuiteCase[] {
  const file = relative(join(SUITE, 'tests'), path);
  const formats = file.includes('/optional/format/') ? 'assert' : 'annotate';
  const groups = readJson(path) as {
    description: string;
    schema: unknown;
    tests: { description: string; data: unknown; valid: boolean }[];
  }[];
  return groups.flatMap((group) => {
    let schema = group.schema;
    // The draft-07 files rarely name their dialect; our default is 2020-12.
    if (draft === 'draft7' && typeof schema === 'object' && schema !== null && !('$schema' in schema)) {
      schema = deepFreeze({ $schema: DRAFT_07, ...schema });
    }
    return group.tests.map((test) => ({
      id: `${file} | ${group.description} | ${test.description}`,
      file,
      schema,
      data: test.data,
      valid: test.valid,
      formats,
    }));
  });
}

const knownReason = new Map<string, string>();
for (const entry of OPTIONAL_DEVIATIONS) for (const id of entry.cases) knownReason.set(id, entry.reason);
const refusedNaming = new Map<string, string>();
for (const entry of REFUSED) for (const id of entry.cases) refusedNaming.set(id, entry.names);

const validators: Record<'annotate' | 'assert', SchemaValidator> = {
  annotate: createSchemaValidator({ schemas: remotes }),
  assert: createSchemaValidator({ schemas: remotes, formats: 'assert' }),
};

/** The validator's verdict: true (valid), false (VALIDATION failure) or the unexpected error. */
function outcome(testCase: SuiteCase): boolean | { error: unknown } {
  try {
    validators[testCase.formats].validate(testCase.schema, testCase.data);
    return true;
  } catch (err) {
    if (err instanceof SchemaValidationError && err.code === 'VALIDATION') {
      // Every rejection explains itself in the taxonomy.
      expect(err.violations.length).toBeGreaterThan(0);
      for (const violation of err.violations) {
        expect(VIOLATION_CODES).toContain(violation.code);
        expect(violation.message).toMatch(/^Field '/);
      }
      return false;
    }
    return { error: err };
  }
}

function describeOutcome(result: boolean | { error: unknown }): string {
  if (typeof result === 'boolean') return result ? 'valid' : 'invalid';
  return `error ${ToolexecError.isInstance(result.error) ? result.error.code : 'raw'}: ${String((result.error as Error).message)}`;
}

interface PartStats {
  total: number;
  right: number;
  refused: number;
}
const stats = new Map<string, PartStats>();

describe('JSON Schema Test Suite', () => {
  afterAll(() => {
    const parts = [...stats]
      .map(([part, s]) => `${part} ${s.right}/${s.total} right${s.refused > 0 ? `, ${s.refused} refused` : ''}`)
      .join('; ');
    const required = [...stats].filter(([part]) => !part.endsWith('optional')).map(([, s]) => s);
    const total = required.reduce((sum, s) => sum + s.total, 0);
    const right = required.reduce((sum, s) => sum + s.right, 0);
    console.log(
      `JSON Schema Test Suite: required ${right}/${total} right (${((100 * right) / total).toFixed(2)}%), 0 silently wrong; ${parts}.`,
    );
  });

  describe.each(files)('$path', ({ draft, path }) => {
    const optional = path.includes('/optional/');
    const part = `${draft}${optional ? ' optional' : ''}`;
    it(optional ? 'deviates only as listed' : 'gets every case right, or refuses it up front as listed', () => {
      const unexpected: string[] = [];
      const fixed: string[] = [];
      const partStats = stats.get(part) ?? { total: 0, right: 0, refused: 0 };
      stats.set(part, partStats);
      for (const testCase of loadCases(draft, path)) {
        const result = outcome(testCase);
        const right = result === testCase.valid;
        partStats.total++;
        if (right) partStats.right++;
        // Whatever the verdict, only ToolexecErrors leave the validator.
        if (typeof result === 'object') expect(ToolexecError.isInstance(result.error)).toBe(true);
        const naming = refusedNaming.get(testCase.id);
        if (naming !== undefined) {
          const error = typeof result === 'object' ? result.error : undefined;
          if (!ToolexecError.isInstance(error) || error.code !== 'INVALID_SCHEMA' || !error.message.includes(naming)) {
            unexpected.push(`${testCase.id}: expected INVALID_SCHEMA naming "${naming}", got ${describeOutcome(result)}`);
          } else partStats.refused++;
          continue;
        }
        if (knownReason.has(testCase.id)) {
          if (right) fixed.push(testCase.id);
          continue;
        }
        if (!right) unexpected.push(`${testCase.id}: expected ${testCase.valid ? 'valid' : 'invalid'}, got ${describeOutcome(result)}`);
      }
      expect(unexpected).toEqual([]);
      // A listed deviation that passes must leave the table.
      expect(fixed).toEqual([]);
    });
  });

  it('lists only cases of the suite, refusals only outside optional/, deviations only inside it', () => {
    const allIds = new Set(files.flatMap(({ draft, path }) => loadCases(draft, path).map((testCase) => testCase.id)));
    const stale = [...knownReason.keys(), ...refusedNaming.keys()].filter((id) => !allIds.has(id));
    expect(stale).toEqual([]);
    expect([...refusedNaming.keys()].filter((id) => id.includes('/optional/'))).toEqual([]);
    expect([...knownReason.keys()].filter((id) => !id.includes('/optional/'))).toEqual([]);
    for (const entry of [...OPTIONAL_DEVIATIONS, ...REFUSED]) expect(entry.reason.length).toBeGreaterThan(20);
  });

  it('gets at least 99.5% of the required suite right', () => {
    const required = files.filter(({ path }) => !path.includes('/optional/'));
    const cases = required.flatMap(({ draft, path }) => loadCases(draft, path));
    const right = cases.filter((testCase) => outcome(testCase) === testCase.valid).length;
    expect(cases.length).toBeGreaterThan(2200);
    expect(right / cases.length).toBeGreaterThanOrEqual(0.995);
  });

  it('explains failures with a validator that agrees with the fast one on every case', () => {
    const schemas = new Map(Object.entries(remotes).map(([uri, document]) => [uri, copySchemaDocument(document)] as const));
    let compared = 0;
    const disagreements: string[] = [];
    const compilers = {
      annotate: new SchemaCompiler({ formats: 'annotate', schemas }),
      assert: new SchemaCompiler({ formats: 'assert', schemas }),
    };
    const bySchema = new Map<unknown, CompiledSchema | null>();
    for (const { draft, path } of files) {
      for (const testCase of loadCases(draft, path)) {
        const compiler = compilers[testCase.formats];
        let compiled = bySchema.get(testCase.schema);
        if (compiled === undefined) {
          try {
            const canonical = canonicalizeSchema(testCase.schema);
            compiled = compiler.compile(canonical.document, canonical.dialect, canonical.implicitDialect);
          } catch {
            compiled = null; // INVALID_SCHEMA cases are covered above
          }
          bySchema.set(testCase.schema, compiled);
        }
        if (compiled === null) continue;
        let fast: boolean;
        try {
          fast = compiled.validate(testCase.data);
        } catch {
          continue;
        }
        const errors = compiler.explain(compiled, testCase.data);
        const explain = compiled.explain;
        if (typeof explain !== 'function') disagreements.push(`${testCase.id}: no explaining validator`);
        else if (explain(testCase.data) !== fast) disagreements.push(`${testCase.id}: explain says ${String(!fast)}`);
        else if (!fast && errors.length === 0) disagreements.push(`${testCase.id}: no errors`);
        compared++;
      }
    }
    expect(disagreements).toEqual([]);
    expect(compared).toBeGreaterThan(3500);
  });

  it("forTool's bound checks (what the runner calls) pass exactly when the validator's methods do, on every case", () => {
    const byValidator = { annotate: new Map<unknown, ToolSchemaChecks>(), assert: new Map<unknown, ToolSchemaChecks>() };
    let compared = 0;
    const disagreements: string[] = [];
    const outcomeOf = (check: () => void): string => {
      try {
        check();
        return 'pass';
      } catch (err) {
        return ToolexecError.isInstance(err) ? err.code : 'throw';
      }
    };
    for (const { draft, path } of files) {
      for (const testCase of loadCases(draft, path)) {
        const validator = validators[testCase.formats];
        const probe = { name: 'probe', inputSchema: testCase.schema, outputSchema: testCase.schema } as Tool;
        const cache = byValidator[testCase.formats];
        let checks = cache.get(testCase.schema);
        if (checks === undefined) {
          const made = validator.forTool?.(probe);
          if (made === undefined) throw new Error('the validator has no forTool');
          checks = made;
          cache.set(testCase.schema, checks);
        }
        const bound = checks;
        const slots = [
          ['input', () => bound.validateInput(testCase.data), () => validator.validateInput(probe, testCase.data)],
          ['output', () => bound.validateOutput(testCase.data), () => validator.validateOutput(probe, testCase.data)],
        ] as const;
        for (const [slot, viaChecks, viaMethod] of slots) {
          const a = outcomeOf(viaChecks);
          const b = outcomeOf(viaMethod);
          if (a !== b) disagreements.push(`${testCase.id}: the bound ${slot} check gives ${a}, the method ${b}`);
          compared++;
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(compared).toBeGreaterThan(7000);
  });
});
