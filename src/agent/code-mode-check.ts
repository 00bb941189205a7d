/**
 * `checkSnippet`: type-checks a TypeScript snippet against a code-mode API's declarations with the
 * TypeScript compiler (an optional peer dependency), before the snippet runs.
 */
import type * as TypeScriptApi from 'typescript';
import { defaultExport, layerErrors, missingPeerMessage, optionalPeer } from '../model/internal.js';
import type { CodeModeApi } from './code-mode-api.js';

const errors = layerErrors('agent');

type TypeScript = typeof TypeScriptApi;
type SourceFile = TypeScriptApi.SourceFile;

/** One problem the compiler found in a snippet. */
export interface SnippetDiagnostic {
  /** 1-based line in the snippet (0 when the problem is in the declarations). */
  line: number;
  /** 1-based column. */
  column: number;
  /** The TypeScript error code (`2345`: an argument of the wrong type, ...). */
  code: number;
  /** The compiler's message, every level of it. */
  message: string;
}

/** The outcome of {@link checkSnippet}. */
export interface SnippetCheck {
  /** True when the compiler found nothing. */
  ok: boolean;
  /** Every problem, in snippet order. */
  diagnostics: SnippetDiagnostic[];
  /** The problems as lines a model can act on (`line 3:14 TS2345 ...`); `''` when `ok`. */
  text: string;
}

const DECLARATIONS_FILE = '/toolexec/tools.d.ts';
const SNIPPET_FILE = '/toolexec/snippet.ts';
/** The line the snippet starts on inside its wrapper. */
const SNIPPET_FIRST_LINE = 1;

/** Loads TypeScript on first use. @throws `RUNTIME_UNAVAILABLE` when it is not installed. */
const loadTypeScript: () => Promise<TypeScript> = optionalPeer(
  'typescript',
  (mod) => defaultExport(mod) as TypeScript,
  (err) =>
    errors('RUNTIME_UNAVAILABLE', missingPeerMessage('checking a snippet', 'typescript'), {
      cause: err,
      details: { missing: 'typescript' },
    }),
);

/** The standard library files, parsed once per process and shared by every check. */
const libraryFiles = new Map<string, SourceFile>();

/**
 * Type-checks a TypeScript (or JavaScript) snippet against a code-mode API's declarations, as the
 * sandbox runs it: the body of an async function (top-level `await` and `return`), with only the
 * declared globals (`tools`, `console`, the timers, `__out`) and the ES2023 library.
 *
 * @remarks
 * Strict mode. A call of a declared tool with a wrong ID, a missing or misspelled argument or a
 * value of the wrong type is reported with its line and column; a result without an output schema
 * is `unknown` and must be narrowed or cast before use. Needs the optional peer dependency
 * `typescript`. The first check in a process loads the compiler and parses the standard library
 * (seconds on a small machine); later ones reuse the parsed library (tens of milliseconds).
 *
 * @example
 * ```ts
 * const check = await checkSnippet(api, code);
 * if (!check.ok) return `Your snippet does not type-check:\n${check.text}`;
 * await exec.executeCode({ code, language: 'typescript' });
 * ```
 *
 * @throws `INVALID_ARGUMENT` when `api.declarations` or `code` is not a string, or for the Python
 * API (`language: 'python'`);
 * `RUNTIME_UNAVAILABLE` when TypeScript is not installed.
 */
export async function checkSnippet(api: Pick<CodeModeApi, 'declarations'> & { language?: string }, code: string): Promise<SnippetCheck> {
  if (api === null || typeof api !== 'object' || typeof api.declarations !== 'string') {
    throw errors.invalidArgument('api', 'must be a code-mode API ({ declarations })');
  }
  if (api.language === 'python') {
    throw errors.invalidArgument('api', 'is the Python API: checkSnippet type-checks TypeScript and JavaScript snippets only', {
      details: { language: 'python' },
    });
  }
  if (typeof code !== 'string') throw errors.invalidArgument('code', 'must be a string');
  const ts = await loadTypeScript();
  const options: TypeScriptApi.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    allowJs: false,
    skipLibCheck: true,
    moduleDetection: ts.ModuleDetectionKind.Legacy,
  };
  const wrapped = `async function __toolexecSnippet() {\n${code}\n}\n`;
  const sources = new Map([
    [DECLARATIONS_FILE, api.declarations],
    [SNIPPET_FILE, wrapped],
  ]);
  const host = ts.createCompilerHost(options, true);
  const readLibrary = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError) => {
    const text = sources.get(fileName);
    if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
    let file = libraryFiles.get(fileName);
    if (file === undefined) {
      file = readLibrary(fileName, languageVersion, onError);
      if (file !== undefined) libraryFiles.set(fileName, file);
    }
    return file;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => sources.has(fileName) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => sources.get(fileName) ?? readFile(fileName);
  host.writeFile = () => undefined;
  const program = ts.createProgram({ rootNames: [DECLARATIONS_FILE, SNIPPET_FILE], options, host });
  const diagnostics: SnippetDiagnostic[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (d.file === undefined || d.start === undefined) {
      diagnostics.push({ line: 0, column: 0, code: d.code, message });
      continue;
    }
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    const inSnippet = d.file.fileName === SNIPPET_FILE;
    diagnostics.push({
      line: inSnippet ? Math.max(1, line + 1 - SNIPPET_FIRST_LINE) : 0,
      column: character + 1,
      code: d.code,
      message: inSnippet ? message : `in the declarations: ${message}`,
    });
  }
  diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
  const text = diagnostics.map((d) => `line ${d.line}:${d.column} TS${d.code} ${d.message}`).join('\n');
  return { ok: diagnostics.length === 0, diagnostics, text };
}
