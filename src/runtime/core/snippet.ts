/**
 * Snippet preparation shared by every backend: language check and TypeScript transpilation on
 * the host, keeping the user's line numbers.
 */
import { transform } from 'sucrase';
import { runtimeError } from './errors.js';

/** What {@link prepareSnippet} takes: the request's code and language. */
export interface SnippetSource {
  /** The snippet as the caller wrote it. */
  code: string;
  /** `javascript`/`js` (default) or `typescript`/`ts`, case-insensitive. */
  language?: string;
}

/** A snippet ready to run in a JavaScript sandbox. */
export interface PreparedSnippet {
  /** JavaScript: the input as is, or the TypeScript transpiled (same line numbers). */
  code: string;
  /** Always `javascript`. */
  language: 'javascript';
}

const JAVASCRIPT = new Set(['javascript', 'js']);
const TYPESCRIPT = new Set(['typescript', 'ts']);

/**
 * Turns a request's code into JavaScript a sandbox can run.
 *
 * @remarks
 * TypeScript is transpiled with sucrase (`transforms: ['typescript']`, ES syntax left as is), which
 * keeps every line where it was, so line numbers in errors stay the user's. Top-level `return` and
 * `await` are accepted (the sandbox runs the snippet as the body of an async function).
 *
 * @throws `RUNTIME_UNAVAILABLE` for any other language (naming it); `CODE_EXECUTION` for a
 * TypeScript syntax error, with `details.line` and `details.column` (1-based).
 */
export function prepareSnippet(request: SnippetSource): PreparedSnippet {
  const language = (request.language ?? 'javascript').trim().toLowerCase();
  if (language === '' || JAVASCRIPT.has(language)) return { code: request.code, language: 'javascript' };
  if (!TYPESCRIPT.has(language)) {
    throw runtimeError(
      'RUNTIME_UNAVAILABLE',
      `runtime unavailable: language "${request.language ?? ''}" is not supported (use javascript or typescript)`,
      { details: { language: request.language } },
    );
  }
  try {
    const output = transform(request.code, { transforms: ['typescript'], disableESTransforms: true });
    return { code: output.code, language: 'javascript' };
  } catch (err) {
    const loc = (err as { loc?: { line?: unknown; column?: unknown } }).loc;
    const line = typeof loc?.line === 'number' ? loc.line : undefined;
    const column = typeof loc?.column === 'number' ? loc.column : undefined;
    const reason = err instanceof Error ? err.message.replace(/\s*\(\d+:\d+\)$/, '') : String(err);
    const where = line === undefined ? '' : ` (line ${line}, col ${column ?? 0})`;
    throw runtimeError('CODE_EXECUTION', `TypeScript syntax error: ${reason}${where}`, {
      cause: err,
      details: { ...(line === undefined ? {} : { line }), ...(column === undefined ? {} : { column }), phase: 'transpile' },
    });
  }
}
