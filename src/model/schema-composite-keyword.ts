/**
 * The explaining Ajv's `oneOf` / `anyOf`: keywords that keep each branch's own errors apart, so a
 * failure of a union can be explained branch by branch (see composite-violations.ts).
 */
import { _, Name, type AnySchema, type CodeKeywordDefinition } from 'ajv';

const ERRORS = new Name('errors');
const V_ERRORS = new Name('vErrors');

/**
 * `oneOf` / `anyOf` that run every branch, then put each failing branch's errors into the
 * keyword's own error (`params.branches`) instead of leaving them mixed into the error list.
 * Same verdict and the same evaluated-property bookkeeping as Ajv's own keywords.
 */
export function compositeKeyword(keyword: 'oneOf' | 'anyOf'): CodeKeywordDefinition {
  return {
    keyword,
    schemaType: 'array',
    trackErrors: true,
    error: {
      message: keyword === 'oneOf' ? 'must match exactly one schema in oneOf' : 'must match a schema in anyOf',
      params: ({ params }) => _`{passing: ${params.passing}, branches: ${params.branches}}`,
    },
    code(cxt) {
      const { gen } = cxt;
      const schema = cxt.schema as AnySchema[];
      const passing = gen.let('passing', _`[]`);
      const branches = gen.let('branches', _`[]`);
      const branchValid = gen.name('_valid');
      cxt.setParams({ passing, branches });
      gen.block(() => {
        schema.forEach((_branch, i) => {
          const start = gen.const('_start', ERRORS);
          const branchCxt = cxt.subschema({ keyword, schemaProp: i, compositeRule: true }, branchValid);
          gen.if(
            branchValid,
            () => {
              gen.code(_`${passing}.push(${i})`);
              gen.code(_`${branches}.push(null)`);
              cxt.mergeEvaluated(branchCxt, Name);
            },
            () => {
              gen.code(_`${branches}.push(${V_ERRORS} === null ? [] : ${V_ERRORS}.slice(${start}, ${ERRORS}))`);
            },
          );
          // Drop the branch's errors from the main list; they live on in `branches`.
          gen.assign(ERRORS, start);
          gen.if(_`${V_ERRORS} !== null`, () =>
            gen.if(
              start,
              () => gen.assign(_`${V_ERRORS}.length`, start),
              () => gen.assign(V_ERRORS, null),
            ),
          );
        });
      });
      const valid = keyword === 'oneOf' ? _`${passing}.length === 1` : _`${passing}.length > 0`;
      cxt.result(
        valid,
        () => cxt.reset(),
        () => cxt.error(true),
      );
    },
  };
}
