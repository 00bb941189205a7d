// toolexec node guest: runs ONE snippet inside a plain `node` process and speaks the gateway
// protocol (newline-delimited JSON) with the host over stdin (host -> guest) and stdout
// (guest -> host). Dependency-free, Node >= 20, CommonJS (it starts ~8 ms faster than an ES
// module). Used by the unsafe_host backend and by every backend that runs node in a container or
// VM (docker, gvisor, remote): run as a file, or sent on stdin to NODE_GUEST_LOADER (node -e).
//
// Host -> guest: {type:'start', code, maxResultBytes?}, then replies {type:'response'|'error', id, payload}.
// Guest -> host: gateway requests {type:'search_tools'|..., id, payload}, output {type:'stdout'|'stderr', data},
//                and one terminal message {type:'result', value?} or {type:'failed', error:{...}}.
//
// Every protocol write is a blocking write to fd 1, so a snippet that prints in a busy loop is
// throttled by the host reading the pipe (and killed when it exceeds the output cap). The snippet
// never sees the real stdout/stderr: process.stdout/stderr and console are replaced by captures.

'use strict';

const { writeSync } = require('node:fs');
const { Writable } = require('node:stream');
const vm = require('node:vm');

// The snippet runs in this realm and may replace any intrinsic (JSON.parse, Map.prototype.get,
// Error, Reflect.apply, ...). Everything the protocol path needs is captured here, before the
// snippet runs ("primordials"), so a snippet that tampers with its globals still gets its replies.
const ReflectApply = Reflect.apply;
const uncurry =
  (fn) =>
  (self, ...args) =>
    ReflectApply(fn, self, args);
const JSONParse = JSON.parse;
const JSONStringify = JSON.stringify;
const MapGet = uncurry(Map.prototype.get);
const MapSet = uncurry(Map.prototype.set);
const MapDelete = uncurry(Map.prototype.delete);
const StringSlice = uncurry(String.prototype.slice);
const StringIndexOf = uncurry(String.prototype.indexOf);
const StringTrim = uncurry(String.prototype.trim);
const StringSplit = uncurry(String.prototype.split);
const ArrayJoin = uncurry(Array.prototype.join);
const ArraySlice = uncurry(Array.prototype.slice);
const ArrayMap = uncurry(Array.prototype.map);
const ArrayIsArray = Array.isArray;
const ObjectDefineProperty = Object.defineProperty;
const ObjectFreeze = Object.freeze;
const GuestError = Error;
const GuestPromise = Promise;
const GuestString = String;
const GuestNumber = Number;

const FILENAME = 'toolexec-snippet.js';
const CHUNK_CHARS = 64 * 1024;
const REQUEST_ID = Symbol.for('toolexec.guest.requestId');
const sleeper = new Int32Array(new SharedArrayBuffer(4));

let finished = false;

function writeAll(text) {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(1, bytes, offset, bytes.length - offset);
    } catch (err) {
      if (err && err.code === 'EAGAIN') {
        Atomics.wait(sleeper, 0, 0, 1);
        continue;
      }
      // the host is gone: nothing left to report to
      process.exit(70);
    }
  }
}

function send(message) {
  writeAll(`${JSONStringify(message)}\n`);
}

// ---- output capture -------------------------------------------------------------------------

function emit(stream, text) {
  if (finished || text.length === 0) return;
  for (let i = 0; i < text.length; i += CHUNK_CHARS) send({ type: stream, data: StringSlice(text, i, i + CHUNK_CHARS) });
}

function formatValue(value) {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return String(value);
  try {
    const json = JSONStringify(value);
    return json === undefined ? String(value) : json;
  } catch {
    return String(value);
  }
}

function format(args) {
  return `${ArrayJoin(ArrayMap(args, formatValue), ' ')}\n`;
}

// A real Writable (so code that pipes into process.stdout, e.g. `new Worker()`, works) whose
// writes go straight, synchronously, into the protocol as output messages.
function captureStream(stream, fd) {
  const capture = new Writable({
    decodeStrings: false,
    write(chunk, encoding, callback) {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(encoding === 'buffer' ? 'utf8' : encoding);
      emit(stream, text);
      callback();
    },
  });
  capture.fd = fd;
  capture.isTTY = false;
  return capture;
}

const stdoutCapture = captureStream('stdout', 1);
const stderrCapture = captureStream('stderr', 2);
Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => stdoutCapture });
Object.defineProperty(process, 'stderr', { configurable: true, enumerable: true, get: () => stderrCapture });

const out = (...args) => emit('stdout', format(args));
const err = (...args) => emit('stderr', format(args));
const timers = new Map();
const counts = new Map();
globalThis.console = {
  log: out,
  info: out,
  debug: out,
  dir: (value) => out(value),
  table: out,
  warn: err,
  error: err,
  trace: (...args) => err('Trace:', ...args),
  assert: (condition, ...args) => {
    if (!condition) err('Assertion failed', ...args);
  },
  group: out,
  groupCollapsed: out,
  groupEnd: () => undefined,
  time: (label = 'default') => void timers.set(label, performance.now()),
  timeLog: (label = 'default', ...args) => out(`${label}: ${(performance.now() - (timers.get(label) ?? 0)).toFixed(3)}ms`, ...args),
  timeEnd: (label = 'default') => {
    out(`${label}: ${(performance.now() - (timers.get(label) ?? 0)).toFixed(3)}ms`);
    timers.delete(label);
  },
  count: (label = 'default') => {
    const n = (counts.get(label) ?? 0) + 1;
    counts.set(label, n);
    out(`${label}: ${n}`);
  },
  countReset: (label = 'default') => void counts.delete(label),
};

// ---- the tools bridge -----------------------------------------------------------------------

const pending = new Map();
let nextId = 1;

function call(type, payload) {
  const id = GuestString(nextId);
  nextId += 1;
  // captured now, while the snippet's frame is still on the stack: a failure points at its call site
  const site = new GuestError();
  return new GuestPromise((resolve, reject) => {
    MapSet(pending, id, { resolve, reject, site });
    send(payload === undefined ? { type, id } : { type, id, payload });
  });
}

function plainError(wire) {
  const payload = wire && typeof wire === 'object' ? wire : {};
  const error = new GuestError(typeof payload.error === 'string' && payload.error !== '' ? payload.error : 'unknown error');
  if (typeof payload.name === 'string' && payload.name !== '') error.name = payload.name;
  if (typeof payload.code === 'string') error.code = payload.code;
  if (payload.details && typeof payload.details === 'object') error.details = payload.details;
  if (typeof payload.toolId === 'string') error.toolId = payload.toolId;
  if (ArrayIsArray(payload.steps)) error.steps = ArrayMap(payload.steps, plainStep);
  return error;
}

function plainStepError(wire) {
  const out = { name: wire.name ?? 'Error', code: wire.code, message: wire.error ?? 'unknown error' };
  if (wire.details) out.details = wire.details;
  return out;
}

function plainStep(step) {
  if (!step || typeof step !== 'object' || !step.error || typeof step.error !== 'object') return step;
  return { ...step, error: plainStepError(step.error) };
}

function reply(message) {
  const entry = MapGet(pending, message.id);
  if (entry === undefined) return;
  MapDelete(pending, message.id);
  if (message.type === 'response') {
    entry.resolve(message.payload);
    return;
  }
  const error = plainError(message.payload);
  const frames = typeof entry.site.stack === 'string' ? ArrayJoin(ArraySlice(StringSplit(entry.site.stack, '\n'), 1), '\n') : '';
  error.stack = `${error.name}: ${error.message}\n${frames}`;
  ObjectDefineProperty(error, REQUEST_ID, { value: message.id });
  entry.reject(error);
}

const tools = ObjectFreeze({
  async searchTools(query, limit = 10) {
    const payload = await call('search_tools', { query: GuestString(query ?? ''), limit: GuestNumber(limit) });
    return payload?.results ?? [];
  },
  async listNamespaces() {
    const payload = await call('list_namespaces');
    return payload?.namespaces ?? [];
  },
  async describeTool(id, level = 'summary') {
    return call('describe_tool', { id: GuestString(id), level: GuestString(level) });
  },
  async listToolExamples(id, max = 0) {
    const payload = await call('list_tool_examples', { id: GuestString(id), max: GuestNumber(max) });
    return payload?.examples ?? [];
  },
  async runTool(id, args) {
    return call('run_tool', args === undefined || args === null ? { id: GuestString(id) } : { id: GuestString(id), args });
  },
  async runChain(steps) {
    const payload = await call('run_chain', { steps: ArrayIsArray(steps) ? steps : [] });
    return { result: payload?.result, steps: ArrayIsArray(payload?.steps) ? ArrayMap(payload.steps, plainStep) : [] };
  },
});

// ---- running the snippet --------------------------------------------------------------------

let codeLines = 1;

function clampLine(line) {
  return Math.min(Math.max(line, 1), codeLines);
}

function locate(error, syntax) {
  const stack = error && typeof error.stack === 'string' ? error.stack : '';
  if (syntax) {
    const m = /^[^\n]*toolexec-snippet\.js:(\d+)\n([^\n]*)\n([^\n^]*)\^/.exec(stack);
    if (m) return { line: clampLine(Number(m[1])), column: m[3].length + 1 };
  }
  const m = /toolexec-snippet\.js:(\d+):(\d+)/.exec(stack);
  if (m) return { line: clampLine(Number(m[1])), column: Number(m[2]) };
  return {};
}

function finish(message) {
  if (finished) return;
  finished = true;
  send(message);
  process.exit(0);
}

function fail(error, syntax = false) {
  const isObject = error !== null && typeof error === 'object';
  const report = {
    name: isObject && typeof error.name === 'string' ? error.name : 'Error',
    message: isObject && typeof error.message === 'string' ? error.message : String(error),
    ...locate(error, syntax),
  };
  if (syntax) report.phase = 'compile';
  if (isObject && typeof error.code === 'string') report.code = error.code;
  if (isObject && typeof error[REQUEST_ID] === 'string') report.requestId = error[REQUEST_ID];
  if (isObject && typeof error.stack === 'string') report.stack = StringSlice(error.stack, 0, 4096);
  if (error instanceof RangeError && /call stack size/i.test(error.message)) report.limit = 'stack';
  else if (isObject && !(error instanceof Error) && typeof error.limit === 'string') report.limit = error.limit;
  finish({ type: 'failed', error: report });
}

async function start(message) {
  const code = typeof message.code === 'string' ? message.code : '';
  const maxResultBytes = typeof message.maxResultBytes === 'number' ? message.maxResultBytes : Infinity;
  codeLines = code.split('\n').length;
  globalThis.tools = tools;
  globalThis.__out = undefined;
  let snippet;
  try {
    const script = new vm.Script(`(async function () {\n${code}\n})`, {
      filename: FILENAME,
      lineOffset: -1,
      // unsafe means unsafe: `await import('node:fs')` works where the host allows it (Node >= 20.12)
      ...(vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER === undefined
        ? {}
        : { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }),
    });
    snippet = script.runInThisContext();
  } catch (error) {
    fail(error, true);
    return;
  }
  let value;
  try {
    value = await snippet();
  } catch (error) {
    fail(error);
    return;
  }
  if (value === undefined) value = globalThis.__out;
  let text;
  try {
    text = value === undefined ? undefined : JSONStringify(value);
  } catch (error) {
    fail({ name: 'TypeError', message: `the result is not JSON-serializable: ${error.message}` });
    return;
  }
  if (text !== undefined && Buffer.byteLength(text) > maxResultBytes) {
    fail({ name: 'RangeError', message: `the result is larger than ${maxResultBytes} bytes`, limit: 'output' });
    return;
  }
  finish(text === undefined ? { type: 'result' } : { type: 'result', value: JSONParse(text) });
}

// the dynamic-import loader above is flagged experimental; that is not the snippet's output
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === 'string' ? warning : String(warning?.message ?? '');
  if (text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return undefined;
  return emitWarning.call(process, warning, ...rest);
};

process.on('uncaughtException', (error) => fail(error));
process.on('unhandledRejection', (reason) => fail(reason));

// ---- host messages --------------------------------------------------------------------------

let buffer = '';
let started = false;

function handleLine(line) {
  if (StringTrim(line) === '') return;
  let message;
  try {
    message = JSONParse(line);
  } catch {
    return;
  }
  if (message === null || typeof message !== 'object') return;
  if (message.type === 'start' && !started) {
    started = true;
    void start(message);
  } else if ((message.type === 'response' || message.type === 'error') && typeof message.id === 'string') {
    reply(message);
  }
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let newline = StringIndexOf(buffer, '\n');
  while (newline !== -1) {
    const line = StringSlice(buffer, 0, newline);
    buffer = StringSlice(buffer, newline + 1);
    handleLine(line);
    newline = StringIndexOf(buffer, '\n');
  }
});
// the host closed our input (or died): nothing more can happen
process.stdin.on('end', () => process.exit(finished ? 0 : 71));
process.stdin.resume();
