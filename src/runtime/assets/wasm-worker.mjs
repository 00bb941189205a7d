// toolexec wasm worker: a pooled worker_thread that runs snippets for the `wasm` runtime backend.
//
// Each JavaScript run gets a FRESH QuickJS VM (quickjs-wasi: its own WebAssembly instance and linear
// memory), made in advance while the worker is idle and disposed after the run. The snippet only
// reaches what the prelude (wasm-prelude.js) puts on its global object; the host functions behind
// it accept and return primitives only, so no object of this worker ever enters the VM.
//
// Control (parentPort), host -> worker: {type:'js'|'wasi', seq, port, ...}, {type:'cancel', seq}.
// Control, worker -> host: {type:'ready', versions}, then {type:'idle', seq} after each run.
// Each run has its own MessagePort speaking the gateway protocol, as JSON text the worker relays
// between the VM and the host without parsing: requests {type:'search_tools'|..., id, payload} out,
// replies {type:'response'|'error', id, payload} in. Output {type:'stdout'|'stderr', data} and one
// terminal {type:'result', json?} or {type:'failed', error:{...}} message travel as objects.
//
// A cancel is also signalled through a shared Int32Array (workerData.control[0] = seq) that the
// interrupt handler polls, so a busy VM stops without waiting for this thread's event loop.

import { readFileSync } from 'node:fs';
import { parentPort, receiveMessageOnPort, threadId, workerData } from 'node:worker_threads';
import { JSException, QuickJS } from 'quickjs-wasi';

/** How long a worker waiting on a tool call sleeps for its reply before yielding to its event loop. */
const REPLY_WAIT_MS = 1;
const SNIPPET_FILE = 'toolexec-snippet.js';
const PRELUDE_FILE = 'toolexec-prelude.js';
const PRELUDE = readFileSync(new URL('./wasm-prelude.js', import.meta.url), 'utf8');
const FLUSH_BYTES = 64 * 1024;
const FLUSH_INTERVAL_MS = 10;
const MAX_TIMERS = 10_000;
const MAX_STACK_CHARS = 4096;

// this thread's stdout/stderr are the host's: node:wasi's ExperimentalWarning stays out of them
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === 'string' ? warning : String(warning?.message ?? '');
  if (/WASI/.test(text)) return undefined;
  return emitWarning.call(process, warning, ...rest);
};

const { quickjs, control, replySpin } = workerData;
// the seq of a run to cancel, polled by the interrupt handler
const cancelCell = new Int32Array(control);
// spin slots shared by the pool's workers (0: free, else the spinning worker's thread id), and how
// long to spin for a reply before sleeping; absent on one core or when spinning is off
const spinCells = replySpin === undefined ? undefined : new Int32Array(replySpin.slots);
const SPIN_MS = replySpin === undefined ? 0 : replySpin.ms;
const encoder = new TextEncoder();

/** The run in progress (JsRun or WasiRun), if any. */
let current;
/** A VM made in advance for the next run: { key, promise }. */
let spare;

/**
 * Waits until `cell` moves off `seen` (the host posted a reply) or REPLY_WAIT_MS passes; true when
 * it moved. Busy-waits first for SPIN_MS if a spin slot is free: a reply that lands meanwhile skips
 * the futex wake-up, which on a VM costs tens of microseconds per tool call.
 */
function waitForReply(cell, seen) {
  if (spinCells !== undefined) {
    for (let slot = 0; slot < spinCells.length; slot++) {
      if (Atomics.compareExchange(spinCells, slot, 0, threadId) !== 0) continue;
      try {
        const until = performance.now() + SPIN_MS;
        do {
          if (Atomics.load(cell, 0) !== seen) return true;
        } while (performance.now() < until);
      } finally {
        Atomics.store(spinCells, slot, 0);
      }
      break;
    }
  }
  return Atomics.wait(cell, 0, seen, REPLY_WAIT_MS) !== 'timed-out';
}

function byteLength(text) {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
function truncateUtf8(text, maxBytes) {
  if (maxBytes <= 0) return '';
  const target = new Uint8Array(maxBytes);
  const { read } = encoder.encodeInto(text, target);
  return text.slice(0, read);
}

/** The `id` of a reply's JSON text (the host writes `{"type":...,"id":"N",...}`), without parsing it all. */
function replyId(json) {
  const match = /"id":"(\d+)"/.exec(json.slice(0, 64));
  return match === null ? undefined : match[1];
}

// ---- output shared by both kinds of run ----------------------------------------------------------

class Output {
  constructor(port, maxBytes) {
    this.port = port;
    this.maxBytes = maxBytes;
    this.bytes = 0;
    this.chunks = [];
    this.pendingBytes = 0;
    this.lastFlush = Date.now();
  }

  /** Adds text; returns false (after keeping what fits) when the cap is exceeded. */
  add(stream, text) {
    const bytes = byteLength(text);
    const room = this.maxBytes - this.bytes;
    if (bytes > room) {
      const kept = truncateUtf8(text, room);
      if (kept !== '') this.push(stream, kept, byteLength(kept));
      this.bytes = this.maxBytes;
      this.flush();
      return false;
    }
    this.bytes += bytes;
    this.push(stream, text, bytes);
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    return true;
  }

  push(stream, data, bytes) {
    const last = this.chunks[this.chunks.length - 1];
    if (last !== undefined && last.type === stream) last.data += data;
    else this.chunks.push({ type: stream, data });
    this.pendingBytes += bytes;
  }

  maybeFlush(now) {
    if (this.pendingBytes > 0 && now - this.lastFlush >= FLUSH_INTERVAL_MS) this.flush();
  }

  flush() {
    this.lastFlush = Date.now();
    if (this.chunks.length === 0) return;
    const chunks = this.chunks;
    this.chunks = [];
    this.pendingBytes = 0;
    for (const chunk of chunks) post(this.port, chunk);
  }
}

function post(port, message) {
  try {
    port.postMessage(message);
  } catch {
    // the host closed the run's port: nobody is listening any more
  }
}

function idle(seq) {
  current = undefined;
  parentPort.postMessage({ type: 'idle', seq });
}

// ---- QuickJS sandboxes ---------------------------------------------------------------------------

function sandboxKey(memoryBytes, maxStackBytes) {
  return `${memoryBytes}:${maxStackBytes}`;
}

/** A fresh VM with the prelude evaluated; host functions route to `sandbox.run`. */
async function createSandbox(memoryBytes, maxStackBytes) {
  const sandbox = { run: undefined, vm: undefined, bridge: undefined };
  const vm = await QuickJS.create({
    wasm: quickjs,
    memoryLimit: memoryBytes,
    maxStackSize: maxStackBytes,
    interruptHandler: () => (sandbox.run === undefined ? false : sandbox.run.interrupt()),
    onUnhandledRejection: (promise, reason, handled) => sandbox.run?.unhandled(promise, reason, handled),
    // `import()` exists in the language; nothing can be imported (a string: no host stack enters the VM)
    moduleLoader: {
      load(name) {
        throw `cannot import "${name}": the wasm sandbox has no modules (use the global \`tools\`)`;
      },
    },
    // the engine's own diagnostics never reach this process's stdout/stderr
    wasi: (memory) => ({
      fd_write(_fd, iovs, iovsLen, nwrittenPtr) {
        const view = new DataView(memory.buffer);
        let total = 0;
        for (let i = 0; i < iovsLen; i += 1) total += view.getUint32(iovs + i * 8 + 4, true);
        view.setUint32(nwrittenPtr, total, true);
        return 0;
      },
    }),
  });
  sandbox.vm = vm;
  const route = (method) =>
    function (...args) {
      const run = sandbox.run;
      if (run === undefined) throw 'no run is active';
      return run[method](...args) ?? vm.undefined;
    };
  const send = vm.newFunction('send', route('send'));
  const write = vm.newFunction('write', route('write'));
  const timer = vm.newFunction('timer', route('timer'));
  const factory = vm.evalCode(PRELUDE, PRELUDE_FILE);
  const bridge = vm.callFunction(factory, vm.undefined, send, write, timer);
  sandbox.bridge = {
    deliver: bridge.getProp('deliver'),
    finish: bridge.getProp('finish'),
    report: bridge.getProp('report'),
    fire: bridge.getProp('fire'),
  };
  for (const handle of [bridge, factory, send, write, timer]) handle.dispose();
  return sandbox;
}

function disposeSandbox(sandbox) {
  try {
    sandbox.vm.dispose();
  } catch {
    // a VM whose engine trapped may not dispose cleanly; it is dropped either way
  }
}

async function takeSandbox(memoryBytes, maxStackBytes) {
  const key = sandboxKey(memoryBytes, maxStackBytes);
  const ready = spare;
  spare = undefined;
  if (ready !== undefined) {
    if (ready.key === key) {
      try {
        return await ready.promise;
      } catch {
        // make a new one below
      }
    } else {
      void ready.promise.then(disposeSandbox, () => undefined);
    }
  }
  return createSandbox(memoryBytes, maxStackBytes);
}

function prepareSpare(memoryBytes, maxStackBytes) {
  if (spare !== undefined) return;
  const promise = createSandbox(memoryBytes, maxStackBytes);
  promise.catch(() => undefined);
  spare = { key: sandboxKey(memoryBytes, maxStackBytes), promise };
}

// ---- one JavaScript run ----------------------------------------------------------------------------

class JsRun {
  constructor(message) {
    this.seq = message.seq;
    this.port = message.port;
    this.replyCell = message.replyCell instanceof Int32Array ? message.replyCell : undefined;
    this.code = message.code;
    this.codeLines = message.code.split('\n').length;
    this.memoryBytes = message.memoryBytes;
    this.maxStackBytes = message.maxStackBytes;
    this.maxResultBytes = message.maxResultBytes;
    this.maxMessageBytes = message.maxMessageBytes;
    this.deadline = Date.now() + message.timeoutMs;
    this.output = new Output(this.port, message.maxOutputBytes);
    this.inFlight = new Set();
    this.timers = new Map();
    this.rejections = new Map();
    this.stop = undefined;
    this.done = false;
    this.settling = false;
    this.sandbox = undefined;
    this.vm = undefined;
    this.main = undefined;
    this.port.on('message', (reply) => this.onReply(reply));
    this.port.on('close', () => this.cancel(this.seq));
  }

  async start() {
    let sandbox;
    try {
      sandbox = await takeSandbox(this.memoryBytes, this.maxStackBytes);
    } catch (error) {
      this.end({ type: 'failed', error: this.hostFailure(error, 'the JavaScript engine could not start') });
      return;
    }
    if (this.done) {
      disposeSandbox(sandbox);
      return;
    }
    this.sandbox = sandbox;
    this.vm = sandbox.vm;
    sandbox.run = this;
    if (this.stop !== undefined) {
      this.endStopped();
      return;
    }
    const vm = this.vm;
    let factory;
    try {
      factory = vm.evalCode(`(async function () {\n${this.code}\n})`, SNIPPET_FILE);
    } catch (error) {
      this.failWithException(error, 'compile');
      return;
    }
    try {
      this.main = vm.callFunction(factory, vm.undefined);
    } catch (error) {
      this.failWithException(error);
      return;
    } finally {
      factory.dispose();
    }
    this.pump();
  }

  // -- host functions (called from inside the VM) --

  interrupt() {
    if (this.stop !== undefined) return true;
    if (Atomics.load(cancelCell, 0) === this.seq) {
      this.stop = 'cancelled';
      return true;
    }
    const now = Date.now();
    if (now > this.deadline) {
      this.stop = 'timeout';
      return true;
    }
    this.output.maybeFlush(now);
    return false;
  }

  /** Relays a gateway request (the JSON text of a protocol message) to the host, unparsed. */
  send(idHandle, jsonHandle) {
    if (this.done || this.stop !== undefined) throw 'the run is over';
    if (!idHandle?.isString || !jsonHandle?.isString) throw 'bad gateway request';
    const id = idHandle.toString();
    const json = jsonHandle.toString();
    const bytes = byteLength(json);
    if (bytes > this.maxMessageBytes) {
      const payload = {
        error: `protocol error: message of ${bytes} bytes exceeds the ${this.maxMessageBytes}-byte limit`,
        code: 'PROTOCOL',
        name: 'ToolexecError',
      };
      queueMicrotask(() => this.onReply(JSON.stringify({ type: 'error', id, payload })));
      return undefined;
    }
    this.output.flush();
    this.inFlight.add(id);
    post(this.port, json);
    return undefined;
  }

  write(streamHandle, textHandle) {
    if (this.done) return undefined;
    if (this.stop === 'output') throw 'output limit exceeded';
    if (!textHandle?.isString) throw 'console output must be a string';
    const stream = streamHandle?.isNumber && streamHandle.toNumber() === 2 ? 'stderr' : 'stdout';
    if (!this.output.add(stream, textHandle.toString())) {
      this.stop = 'output';
      throw `output limit of ${this.output.maxBytes} bytes exceeded`;
    }
    return undefined;
  }

  timer(opHandle, idHandle, msHandle) {
    if (this.done || this.stop !== undefined) return undefined;
    if (!opHandle?.isNumber || !idHandle?.isNumber || !msHandle?.isNumber) throw 'bad timer request';
    const id = idHandle.toNumber();
    const existing = this.timers.get(id);
    if (existing !== undefined) clearTimeout(existing);
    this.timers.delete(id);
    if (opHandle.toNumber() === 0) return undefined;
    if (this.timers.size >= MAX_TIMERS) throw `too many timers (at most ${MAX_TIMERS})`;
    const ms = Math.min(Math.max(1, msHandle.toNumber()), 2_147_483_647);
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        this.fire(id);
      }, ms),
    );
    return undefined;
  }

  unhandled(promise, reason, handled) {
    if (this.done) return;
    const key = promise.identity;
    if (handled) {
      this.rejections.get(key)?.dispose();
      this.rejections.delete(key);
    } else if (!this.rejections.has(key)) {
      this.rejections.set(key, reason.dup());
    }
  }

  // -- host events --

  /** A reply from the host: the JSON text of a `response` / `error` message, relayed unparsed. */
  onReply(reply) {
    if (this.done || typeof reply !== 'string') return;
    this.deliver(reply);
    this.pump();
  }

  deliver(reply) {
    this.inFlight.delete(replyId(reply));
    if (this.stop !== undefined || this.vm === undefined) return;
    const vm = this.vm;
    let handle;
    try {
      handle = vm.newString(reply);
      vm.callFunction(this.sandbox.bridge.deliver, vm.undefined, handle).dispose();
    } catch (error) {
      if (error instanceof JSException) {
        // the snippet broke its own promise machinery; the call stays pending
        error.dispose();
      } else {
        this.stop ??= 'memory';
      }
    } finally {
      handle?.dispose();
    }
  }

  fire(id) {
    if (this.done || this.stop !== undefined) return;
    const vm = this.vm;
    let handle;
    try {
      handle = vm.newNumber(id);
      vm.callFunction(this.sandbox.bridge.fire, vm.undefined, handle).dispose();
    } catch (error) {
      // an uncaught exception in a timer callback fails the run (as in node)
      this.failWithException(error);
      return;
    } finally {
      handle?.dispose();
    }
    this.pump();
  }

  cancel(seq) {
    if (seq !== this.seq || this.done) return;
    // a busy VM notices through the interrupt handler; this message only arrives while it is idle
    this.stop ??= 'cancelled';
    this.cancelledIdle = true;
    this.endStopped();
  }

  // -- driving the VM --

  /** Runs the VM's pending jobs and settles the run if it is over. */
  step() {
    if (this.done || this.settling) return;
    let jobError;
    try {
      this.vm.executePendingJobs();
    } catch (error) {
      jobError = error;
    }
    if (this.stop !== undefined) {
      this.endStopped();
      return;
    }
    if (jobError !== undefined) {
      this.end({ type: 'failed', error: this.hostFailure(jobError, 'the JavaScript engine failed') });
      return;
    }
    if (this.main.promiseState !== 0) {
      this.settling = true;
      void this.vm.resolvePromise(this.main).then(
        (outcome) => this.complete(outcome),
        (error) => this.end({ type: 'failed', error: this.hostFailure(error, 'the JavaScript engine failed') }),
      );
      return;
    }
    const mainKey = this.main.identity;
    for (const [key, reason] of this.rejections) {
      if (key === mainKey) continue;
      this.failWith(reason);
      return;
    }
    this.output.flush();
  }

  /**
   * Drives the VM: runs its jobs; while it waits on tool calls, takes the replies that have already
   * arrived in place (no trip through the event loop, no recursion), otherwise returns and lets the
   * port's message listener deliver the next one.
   */
  pump() {
    for (;;) {
      this.step();
      if (this.done || this.settling || this.inFlight.size === 0) return;
      const received = this.takeReply();
      if (received === undefined) return;
      if (typeof received.message === 'string') this.deliver(received.message);
    }
  }

  /**
   * A reply already on the port, or one the host posts within REPLY_WAIT_MS: the worker spins
   * briefly, then sleeps, on the host's reply counter (far cheaper than a message through the event
   * loop) and then takes the reply off the port. A slower tool call returns to the event loop.
   */
  takeReply() {
    const cell = this.replyCell;
    const seen = cell === undefined ? 0 : Atomics.load(cell, 0);
    const received = receiveMessageOnPort(this.port);
    if (received !== undefined || cell === undefined || this.timers.size > 0) return received;
    return waitForReply(cell, seen) ? receiveMessageOnPort(this.port) : undefined;
  }

  complete(outcome) {
    if (this.done) return;
    if (this.stop !== undefined) {
      this.endStopped();
      return;
    }
    if ('value' in outcome) this.succeed(outcome.value);
    else this.failWith(outcome.error);
  }

  succeed(valueHandle) {
    const vm = this.vm;
    let text;
    try {
      const json = vm.callFunction(this.sandbox.bridge.finish, vm.undefined, valueHandle);
      text = json.isString ? json.toString() : undefined;
      json.dispose();
    } catch (error) {
      if (this.stop !== undefined) {
        this.endStopped();
        return;
      }
      if (error instanceof JSException) {
        const reason = this.describe(error.handle);
        error.dispose();
        this.end({ type: 'failed', error: { name: 'TypeError', message: `the result is not JSON-serializable: ${reason.message}` } });
        return;
      }
      this.end({ type: 'failed', error: this.hostFailure(error, 'the JavaScript engine failed') });
      return;
    }
    if (this.stop !== undefined) {
      this.endStopped();
      return;
    }
    if (text !== undefined && byteLength(text) > this.maxResultBytes) {
      this.end({
        type: 'failed',
        error: { name: 'RangeError', message: `the result is larger than ${this.maxResultBytes} bytes`, limit: 'output' },
      });
      return;
    }
    this.end(text === undefined ? { type: 'result' } : { type: 'result', json: text });
  }

  failWithException(error, phase) {
    if (this.stop !== undefined) {
      this.endStopped();
      return;
    }
    if (!(error instanceof JSException)) {
      this.end({ type: 'failed', error: this.hostFailure(error, 'the JavaScript engine failed') });
      return;
    }
    const report = this.describe(error.handle, phase);
    error.dispose();
    if (this.stop !== undefined) this.endStopped();
    else this.end({ type: 'failed', error: report });
  }

  failWith(errorHandle) {
    const report = this.describe(errorHandle);
    if (this.stop !== undefined) this.endStopped();
    else this.end({ type: 'failed', error: report });
  }

  /** The snippet's error as a report: name, message, code, requestId, line/column, snippet-only stack, limit. */
  describe(errorHandle, phase) {
    const vm = this.vm;
    let report;
    try {
      const json = vm.callFunction(this.sandbox.bridge.report, vm.undefined, errorHandle);
      report = JSON.parse(json.toString());
      json.dispose();
    } catch {
      report = { name: 'Error', message: 'the snippet failed with an error that cannot be read' };
    }
    if (typeof report.message !== 'string') report.message = String(report.message);
    if (phase !== undefined) report.phase = phase;
    this.locate(report);
    if (report.name === 'RangeError' && /call stack size/i.test(report.message)) report.limit = 'stack';
    else if (report.name === 'InternalError' && report.message === 'out of memory') report.limit = 'memory';
    return report;
  }

  locate(report) {
    const stack = typeof report.stack === 'string' ? report.stack : '';
    const frames = [];
    const pattern = /toolexec-snippet\.js:(\d+):(\d+)/;
    for (const line of stack.split('\n')) {
      const match = pattern.exec(line);
      if (match === null) continue;
      const userLine = Math.min(Math.max(Number(match[1]) - 1, 1), this.codeLines);
      if (report.line === undefined) {
        report.line = userLine;
        report.column = Number(match[2]);
      }
      frames.push(line.replace(pattern, `snippet:${userLine}:${match[2]}`));
    }
    const header = `${report.name}: ${report.message}`;
    report.stack = frames.length === 0 ? undefined : `${header}\n${frames.join('\n')}`.slice(0, MAX_STACK_CHARS);
    if (report.stack === undefined) delete report.stack;
  }

  hostFailure(error, what) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof RangeError && /call stack/i.test(message)) {
      return { name: 'RangeError', message: 'Maximum call stack size exceeded', limit: 'stack' };
    }
    if (/wasm_malloc failed|out of memory/i.test(message)) {
      return { name: 'InternalError', message: 'out of memory', limit: 'memory' };
    }
    if (error instanceof WebAssembly.RuntimeError && this.nearMemoryLimit()) {
      return { name: 'InternalError', message: `out of memory (${message})`, limit: 'memory' };
    }
    return { name: 'InternalError', message: `${what}: ${message}` };
  }

  nearMemoryLimit() {
    try {
      const usage = this.vm.getMemoryUsage();
      return usage.mallocSize > this.memoryBytes * 0.9;
    } catch {
      return false;
    }
  }

  endStopped() {
    switch (this.stop) {
      case 'output':
        this.end({
          type: 'failed',
          error: { name: 'RangeError', message: `output over ${this.output.maxBytes} bytes`, limit: 'output', what: 'console' },
        });
        return;
      case 'timeout':
        this.end({ type: 'failed', error: { name: 'InternalError', message: 'interrupted', timeout: true } });
        return;
      case 'memory':
        this.end({ type: 'failed', error: { name: 'InternalError', message: 'out of memory', limit: 'memory' } });
        return;
      default: {
        // what the snippet was waiting on when it was stopped (none at all: it could never finish)
        const waiting = this.cancelledIdle === true ? { waiting: { toolCalls: this.inFlight.size, timers: this.timers.size } } : {};
        this.end({ type: 'failed', error: { name: 'InternalError', message: 'interrupted', cancelled: true, ...waiting } });
      }
    }
  }

  end(message) {
    if (this.done) return;
    this.done = true;
    this.output.flush();
    post(this.port, message);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.inFlight.clear();
    this.port.removeAllListeners('message');
    if (this.sandbox !== undefined) this.sandbox.run = undefined;
    // ready before the VM is freed: a next run message is only handled after this turn anyway
    idle(this.seq);
    if (this.sandbox !== undefined) {
      for (const reason of this.rejections.values()) reason.dispose();
      this.rejections.clear();
      disposeSandbox(this.sandbox);
    }
    prepareSpare(this.memoryBytes, this.maxStackBytes);
  }
}

// ---- one raw WASI run ------------------------------------------------------------------------------

const OUTPUT_STOP = Symbol('output limit');
const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_FAULT = 21;
const ERRNO_NOSYS = 52;
let wasiModule;

async function runWasi(message) {
  const { seq, port } = message;
  const output = new Output(port, message.maxOutputBytes);
  const decoders = { 1: new TextDecoder(), 2: new TextDecoder() };
  current = { cancel: () => undefined };
  let instance;
  const memoryBytes = () => {
    const memory = instance?.exports.memory;
    return memory instanceof WebAssembly.Memory ? memory.buffer.byteLength : undefined;
  };
  try {
    wasiModule ??= import('node:wasi');
    const { WASI } = await wasiModule;
    const fd = message.nullFd;
    const wasi = new WASI({ version: 'preview1', args: [], env: {}, preopens: {}, returnOnExit: true, stdin: fd, stdout: fd, stderr: fd });
    const base = wasi.getImportObject().wasi_snapshot_preview1;
    const imports = {
      ...base,
      fd_write(fdNum, iovs, iovsLen, nwrittenPtr) {
        if (fdNum !== 1 && fdNum !== 2) return ERRNO_BADF;
        const memory = instance?.exports.memory;
        if (!(memory instanceof WebAssembly.Memory)) return ERRNO_BADF;
        const size = memory.buffer.byteLength;
        const view = new DataView(memory.buffer);
        if (iovs < 0 || iovs + iovsLen * 8 > size || nwrittenPtr < 0 || nwrittenPtr + 4 > size) return ERRNO_FAULT;
        const stream = fdNum === 1 ? 'stdout' : 'stderr';
        let total = 0;
        for (let i = 0; i < iovsLen; i += 1) {
          const ptr = view.getUint32(iovs + i * 8, true);
          const len = view.getUint32(iovs + i * 8 + 4, true);
          if (ptr + len > size) return ERRNO_FAULT;
          const text = decoders[fdNum].decode(new Uint8Array(memory.buffer, ptr, len), { stream: true });
          if (!output.add(stream, text)) throw OUTPUT_STOP;
          total += len;
        }
        view.setUint32(nwrittenPtr, total, true);
        output.maybeFlush(Date.now());
        return ERRNO_SUCCESS;
      },
      fd_read(fdNum, _iovs, _iovsLen, nreadPtr) {
        if (fdNum !== 0) return ERRNO_BADF;
        const memory = instance?.exports.memory;
        if (!(memory instanceof WebAssembly.Memory) || nreadPtr < 0 || nreadPtr + 4 > memory.buffer.byteLength) return ERRNO_FAULT;
        new DataView(memory.buffer).setUint32(nreadPtr, 0, true); // stdin is empty
        return ERRNO_SUCCESS;
      },
      // the stdio descriptors are shared with the host: never close or move them
      fd_close: (fdNum) => (fdNum <= 2 ? ERRNO_SUCCESS : base.fd_close(fdNum)),
      fd_renumber: () => ERRNO_NOSYS,
      // uvwasi would signal the whole host process
      proc_raise: () => ERRNO_NOSYS,
    };
    instance = await WebAssembly.instantiate(message.module, { wasi_snapshot_preview1: imports });
    const exitCode = wasi.start(instance);
    output.flush();
    const used = memoryBytes();
    if (exitCode === 0) {
      post(port, { type: 'result', exitCode, ...(used === undefined ? {} : { memoryBytes: used }) });
    } else {
      post(port, {
        type: 'failed',
        error: {
          name: 'ExitError',
          message: `the WASI module exited with code ${exitCode}`,
          exitCode,
          ...(used === undefined ? {} : { memoryBytes: used }),
        },
      });
    }
  } catch (error) {
    output.flush();
    post(port, { type: 'failed', error: wasiFailure(error, memoryBytes()) });
  }
  port.removeAllListeners('message');
  idle(seq);
}

function wasiFailure(error, memoryBytes) {
  const extra = memoryBytes === undefined ? {} : { memoryBytes };
  if (error === OUTPUT_STOP) return { name: 'RangeError', message: 'output limit exceeded', limit: 'output', what: 'console', ...extra };
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError && /call stack/i.test(message)) {
    return { name: 'RangeError', message: 'Maximum call stack size exceeded', limit: 'stack', ...extra };
  }
  if (error instanceof WebAssembly.RuntimeError) return { name: 'RuntimeError', message: `wasm trap: ${message}`, ...extra };
  if (error instanceof WebAssembly.LinkError) return { name: 'LinkError', message, ...extra };
  return { name: error instanceof Error ? error.name : 'Error', message, ...extra };
}

// ---- control -------------------------------------------------------------------------------------

parentPort.on('message', (message) => {
  if (message === null || typeof message !== 'object') return;
  switch (message.type) {
    case 'js': {
      const run = new JsRun(message);
      current = run;
      void run.start();
      return;
    }
    case 'wasi':
      void runWasi(message);
      return;
    case 'cancel':
      current?.cancel(message.seq);
      return;
    case 'prepare':
      prepareSpare(message.memoryBytes, message.maxStackBytes);
      return;
    default:
      return;
  }
});

const probe = await QuickJS.create({ wasm: quickjs });
const versions = probe.versions;
probe.dispose();
parentPort.postMessage({ type: 'ready', versions });
