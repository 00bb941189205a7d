/**
 * The Pyodide child: one Node process (under Node's permission model, inside bubblewrap) that
 * loads Pyodide once and runs Python snippets one after another through the Python prelude
 * (`prelude.py`), speaking newline-delimited JSON with the host on stdin / stdout. Bundled into
 * `dist/assets/python-child.mjs`; it imports nothing but node builtins and, at run time, the
 * Pyodide package from the directory the host names.
 *
 * Host → child: `start` ({@link PythonStartMessage}), then `response` / `error` replies to its
 * gateway requests. Child → host: `ready` once Pyodide is loaded, then per run: gateway requests,
 * `stdout` / `stderr` output and one `result` (after the `result_part`s of a large value, see
 * {@link PythonResultMessage}) / `failed`. With `makeSnapshot` the child instead
 * writes a Pyodide memory snapshot (raw bytes) to stdout and exits.
 */
import { constants as fsConstants, readFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { GuestFailureReport } from '../../gateway/codec.js';
import { LineReader, send, writeAll, writeLine } from './channel.js';
import { FatalDump, interpreterFailure, LIMIT_TEXT } from './crash.js';
import { resultLimitReport, type PythonChildConfig, type PythonResultMessage, type PythonStartMessage } from './messages.js';

const config = JSON.parse(process.argv[2] ?? '{}') as PythonChildConfig;
const SIGINT = 2;

/**
 * The interpreter's whole environment, the same in every child: Emscripten's defaults, fixed (its
 * `LANG` would follow the locale Node reports), without `_`, which Emscripten sets to the program's
 * path (`undefined` removes it). Pyodide adds its own `PYTHONINSPECT` and `LD_LIBRARY_PATH`.
 */
const SANDBOX_ENV = { HOME: '/home/pyodide', PATH: '/', PWD: '/', LANG: 'C.UTF-8', USER: 'web_user', LOGNAME: 'web_user', _: undefined };
/** `sys.executable` and `sys.orig_argv[0]` (Emscripten's program name: otherwise the child's own path). */
const SANDBOX_EXECUTABLE = '/bin/python3';

// Pyodide reads the fs constants through process.binding, which the permission model forbids
Object.defineProperty(process, 'binding', {
  value: (name: string) => {
    if (name === 'constants') return { fs: fsConstants, os: osConstants };
    throw new Error(`process.binding('${name}') is not available in the sandbox`);
  },
  configurable: true,
  writable: true,
});

// Pyodide's module defines its linear memory: the host wrote a copy whose maximum is the memory cap
if (config.wasmPath !== undefined) {
  const capped = readFileSync(config.wasmPath);
  const api = (
    globalThis as unknown as { WebAssembly: { instantiate: (source: unknown, imports?: unknown) => Promise<unknown>; Module: unknown } }
  ).WebAssembly;
  const instantiate = api.instantiate.bind(api);
  const Module = api.Module as new (...args: never[]) => unknown;
  api.instantiate = (source: unknown, imports?: unknown) => instantiate(source instanceof Module ? source : capped, imports);
}

/** Why the interrupt buffer asks Python to stop: the deadline passed, or the output cap was hit. */
const run = {
  deadline: Infinity,
  outputOver: false,
  outputBytes: 0,
  maxOutputBytes: Infinity,
  active: false,
  /** Why the one interrupt of this run was sent; a snippet that swallows it is killed by the host. */
  interrupted: undefined as 'timeout' | 'output' | undefined,
};

/** What the interpreter writes once it failed fatally: its dump, never the snippet's output. */
const dump = new FatalDump();

/** SIGINT once per run, when the output cap was hit or the deadline passed. */
function interruptSignal(): number {
  if (run.interrupted !== undefined || !run.active) return 0;
  if (run.outputOver) run.interrupted = 'output';
  else if (run.deadline !== Infinity && performance.now() > run.deadline) run.interrupted = 'timeout';
  return run.interrupted === undefined ? 0 : SIGINT;
}

/** Pyodide's output streams: each write becomes a `stdout` / `stderr` message while a run is active. */
function outputStream(type: 'stdout' | 'stderr') {
  const decoder = new TextDecoder();
  return {
    write: (bytes: Uint8Array): number => {
      if (dump.fatal) dump.add(new TextDecoder().decode(bytes));
      if (dump.fatal || !run.active || run.outputOver) return bytes.length;
      run.outputBytes += bytes.length;
      if (run.outputBytes > run.maxOutputBytes) run.outputOver = true;
      const data = decoder.decode(bytes, { stream: true });
      if (data !== '') send({ type, data });
      return bytes.length;
    },
    isatty: false,
  };
}

interface PyodideApi {
  runPython(code: string, options?: { globals?: unknown }): unknown;
  setStdin(options: unknown): void;
  setStdout(options: unknown): void;
  setStderr(options: unknown): void;
  setInterruptBuffer(buffer: unknown): void;
  makeMemorySnapshot(): Uint8Array;
  globals: { get(name: string): unknown };
  /** Pyodide's internal API (its fatal error handler). */
  _api: unknown;
}

const { loadPyodide } = (await import(pathToFileURL(`${config.pyodideDir}/pyodide.mjs`).href)) as {
  loadPyodide: (options: Record<string, unknown>) => Promise<PyodideApi>;
};
const bootStart = performance.now();
const pyodide = await loadPyodide({
  indexURL: `${config.pyodideDir}/`,
  env: SANDBOX_ENV,
  _sysExecutable: SANDBOX_EXECUTABLE,
  // `import js` reaches this object, not the child's globalThis
  jsglobals: Object.create(null) as object,
  stdout: () => undefined,
  stderr: () => undefined,
  ...(config.makeSnapshot === true ? { _makeSnapshot: true } : {}),
  ...(config.snapshotPath === undefined ? {} : { _loadSnapshot: readFileSync(config.snapshotPath) }),
});

if (config.makeSnapshot === true) {
  writeAll(pyodide.makeMemorySnapshot());
  process.exit(0);
}

dump.watch(pyodide._api);
// fd 0 is the channel to the host: a snippet's `input()` or `sys.stdin` reads end of file instead
pyodide.setStdin({ read: () => 0, isatty: false });
pyodide.setStdout({ write: outputStream('stdout').write, isatty: false });
pyodide.setStderr({ write: outputStream('stderr').write, isatty: false });
// read at every check Pyodide makes (each few thousand bytecodes): a SIGINT past the deadline
pyodide.setInterruptBuffer({
  get 0() {
    return interruptSignal();
  },
  set 0(_value: number) {
    // Pyodide clears the flag after reading it; the deadline decides again at the next check
  },
});

// the prelude as a module, and the host's entry point beside it; both exist before the first
// run, so the prelude's baseline keeps them
const bootstrap = pyodide.runPython(
  `
import json, sys, types
_prelude = types.ModuleType("toolexec_prelude")
exec(compile(${JSON.stringify(readFileSync(config.preludePath, 'utf8'))}, "prelude.py", "exec"), vars(_prelude))
sys.modules["toolexec_prelude"] = _prelude
def _entry(run_snippet=_prelude.run_snippet, loads=json.loads):
    # bound now, with its separators on the instance: a snippet that edits json's classes only
    # breaks its own tool calls, not the report of its outcome
    dumps = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
    # the value's text is measured against the result cap: UTF-8, as a JavaScript value's
    dumps_value = json.JSONEncoder(allow_nan=False, ensure_ascii=False, separators=(",", ":")).encode
    def run(code, call_js):
        def call(type_, payload):
            return loads(call_js(type_, dumps(payload)))
        outcome = run_snippet(code, call)
        if not outcome.get("ok"):
            return "failed:" + dumps(outcome.get("error"))
        if "value" not in outcome:
            return "none:"
        try:
            return "value:" + dumps_value(outcome.get("value"))
        except RecursionError as exc:
            return "failed:" + dumps({"code": "CODE_EXECUTION", "message": "RecursionError: %s" % exc, "name": "RecursionError"})
    return run
_entry()
`,
) as (code: string, call: (type: string, payload: string) => string) => string;

const reader = new LineReader();
let requestCount = 0;

/** The transport `call` of the prelude: one gateway request, answered before it returns. */
function callHost(type: string, payloadJson: string): string {
  requestCount += 1;
  const id = `py${requestCount}`;
  const payload = payloadJson === 'null' ? '' : `,"payload":${payloadJson}`;
  writeLine(`{"type":${JSON.stringify(type)},"id":"${id}"${payload}}`);
  for (;;) {
    const line = reader.next();
    if (line === undefined) process.exit(0);
    const reply = JSON.parse(line) as { type?: unknown; id?: unknown; payload?: unknown };
    if (reply.id !== id || (reply.type !== 'response' && reply.type !== 'error')) continue;
    if (reply.type === 'error') lastError = { id, payload: reply.payload };
    return line;
  }
}

let lastError: { id: string; payload: unknown } | undefined;

interface PreludeError {
  code?: string;
  message?: string;
  name?: string;
  line?: number;
  column?: number;
  traceback?: string;
  toolId?: string;
}

/** The prelude's error from its JSON text; `null` when the text cannot be read. */
function readPreludeError(text: string): PreludeError | null {
  try {
    const error = JSON.parse(text) as unknown;
    return error !== null && typeof error === 'object' ? error : {};
  } catch {
    return null;
  }
}

/**
 * CPython's `OverflowError` for a size that does not fit a `Py_ssize_t`: on 32-bit WebAssembly any
 * size from 2 GiB up (`bytearray(2 * 1024**3)`), which a 64-bit CPython would try to allocate and
 * fail with `MemoryError` (or be killed at its memory cap). No run can have that much memory here,
 * so it is the memory limit, as on the Docker backend.
 */
const INDEX_OVERFLOW = "cannot fit 'int' into an index-sized integer";

/** Python's compile errors: `SyntaxError` and its subclasses. */
const COMPILE_ERRORS = new Set(['SyntaxError', 'IndentationError', 'TabError']);

/** The prelude's error as the report the host maps (see `failureFromReport`). */
function reportOf(error: PreludeError): GuestFailureReport {
  const name = typeof error.name === 'string' && error.name !== '' ? error.name : 'Error';
  let message = typeof error.message === 'string' ? error.message : '';
  if (message.startsWith(`${name}: `)) message = message.slice(name.length + 2);
  const compile = COMPILE_ERRORS.has(name);
  if (compile) message = message.replace(/ \(line \d+\)$/, '');
  const report: GuestFailureReport = { name, message };
  if (typeof error.line === 'number' && error.line > 0) report.line = error.line;
  if (typeof error.column === 'number' && error.column > 0) report.column = error.column;
  if (typeof error.traceback === 'string' && error.traceback !== '') report.stack = error.traceback;
  if (compile) report.phase = 'compile';
  if (typeof error.code === 'string') report.code = error.code;
  const wire = lastError?.payload as { error?: unknown; code?: unknown } | undefined;
  if (lastError !== undefined && wire?.code === error.code && wire?.error === error.message) report.requestId = lastError.id;
  if (run.outputOver) Object.assign(report, { limit: 'output', what: 'console' });
  else if (name === 'KeyboardInterrupt' && run.interrupted === 'timeout') report.timeout = true;
  else if (name === 'MemoryError' || (name === 'OverflowError' && message === INDEX_OVERFLOW)) {
    Object.assign(report, { limit: 'memory', message: LIMIT_TEXT.memory });
  } else if (name === 'RecursionError') Object.assign(report, { limit: 'stack', message: LIMIT_TEXT.stack });
  return report;
}

function runOne(start: PythonStartMessage): void {
  run.deadline = start.timeoutMs > 0 ? performance.now() + start.timeoutMs : Infinity;
  run.maxOutputBytes = start.maxOutputBytes > 0 ? start.maxOutputBytes : Infinity;
  run.outputBytes = 0;
  run.outputOver = false;
  run.interrupted = undefined;
  run.active = true;
  lastError = undefined;
  let text: string;
  try {
    text = bootstrap(start.code, callHost);
  } catch (err) {
    // a fatal error of the interpreter (out of linear memory, a trap, C recursion past the
    // engine's stack: `json.dumps` of a value thousands of levels deep): this child is done
    run.active = false;
    send({ type: 'failed', error: interpreterFailure(err, dump), fatal: true });
    process.exit(0);
  }
  run.active = false;
  // `value:` and the value's JSON, `none:` for no value, or `failed:` and the prelude's error as
  // JSON; the value's text goes to the host as Python wrote it (node's JSON.stringify stops ~4,000
  // levels deep)
  const colon = text.indexOf(':');
  const kind = text.slice(0, colon);
  const body = text.slice(colon + 1);
  const error = kind === 'failed' ? readPreludeError(body) : undefined;
  if (error === null || (kind !== 'failed' && kind !== 'value' && kind !== 'none')) {
    // the snippet broke what the transport reports with: the run fails and this child is done
    send({ type: 'failed', error: { name: 'Error', message: "the snippet's outcome could not be read back" }, fatal: true });
    process.exit(0);
  }
  if (run.outputOver) {
    send({ type: 'failed', error: { name: 'OutputError', message: 'output limit', limit: 'output', what: 'console' } });
    return;
  }
  if (error !== undefined) {
    send({ type: 'failed', error: reportOf(error) });
    return;
  }
  // None (a snippet that ends with a statement, or with `None`) is no value, as a JS snippet that
  // returns nothing; a value that becomes null (`nan`, `inf`) is null, as a JS snippet's NaN
  if (kind === 'none') {
    send({ type: 'result' });
    return;
  }
  if (start.maxResultBytes > 0 && Buffer.byteLength(body) > start.maxResultBytes) {
    send({ type: 'failed', error: resultLimitReport(start.maxResultBytes) });
    return;
  }
  sendResult(body, start.maxMessageBytes);
}

/** Room on a line for the message around a part of the result's text. */
const RESULT_ENVELOPE_BYTES = 64;

/**
 * Sends the result's JSON text in parts small enough for the host's message cap: a line holds the
 * text escaped as a JSON string (a UTF-16 unit takes at most 6 bytes there), so a result as large
 * as the cap itself arrives whole. Every part but the last is a `result_part`; the last is the
 * `result`.
 */
function sendResult(json: string, maxMessageBytes: number): void {
  const partLength = maxMessageBytes > 0 ? Math.max(1, Math.floor((maxMessageBytes - RESULT_ENVELOPE_BYTES) / 6)) : json.length;
  let at = 0;
  for (; json.length - at > partLength; at += partLength) {
    send({ type: 'result_part', json: json.slice(at, at + partLength) } satisfies PythonResultMessage);
  }
  send({ type: 'result', json: json.slice(at) } satisfies PythonResultMessage);
}

send({ type: 'ready', bootMs: Math.round(performance.now() - bootStart) });
for (;;) {
  const line = reader.next();
  if (line === undefined) break;
  const message = JSON.parse(line) as { type?: unknown };
  if (message.type === 'start') runOne(message as PythonStartMessage);
  else if (message.type === 'exit') break;
}
process.exit(0);
