/**
 * The failure reports of a JavaScript run in the worker: the snippet's error read through the
 * prelude and located in the snippet, the engine's own failures, and why a stopped run stopped.
 */
import type { JSValueHandle, QuickJS } from 'quickjs-wasi';
import type { GuestFailureReport } from '../../gateway/codec.js';
import { wasm } from './webassembly.js';

/** The longest stack a report carries, in characters. */
const MAX_STACK_CHARS = 4096;
const SNIPPET_FRAME = /toolexec-snippet\.js:(\d+):(\d+)/;

/** Why the worker stopped a run before it settled. */
export type StopReason = 'cancelled' | 'timeout' | 'output' | 'memory';

/**
 * Points the report at the snippet: the first snippet frame gives `line` / `column` (the snippet
 * is wrapped in one line of function header), and the stack keeps the snippet's frames only, as
 * `snippet:line:column`.
 */
function locate(report: GuestFailureReport, codeLines: number): void {
  const stack = typeof report.stack === 'string' ? report.stack : '';
  const frames: string[] = [];
  for (const line of stack.split('\n')) {
    const match = SNIPPET_FRAME.exec(line);
    if (match === null) continue;
    const userLine = Math.min(Math.max(Number(match[1]) - 1, 1), codeLines);
    if (report.line === undefined) {
      report.line = userLine;
      report.column = Number(match[2]);
    }
    frames.push(line.replace(SNIPPET_FRAME, `snippet:${userLine}:${match[2]}`));
  }
  const header = `${report.name}: ${report.message}`;
  if (frames.length === 0) delete report.stack;
  else report.stack = `${header}\n${frames.join('\n')}`.slice(0, MAX_STACK_CHARS);
}

/**
 * The snippet's error as a report (read by the prelude's `report`): name, message, code,
 * requestId, line/column, the snippet-only stack and the limit it hit.
 */
export function describeError(
  vm: QuickJS,
  report: JSValueHandle,
  errorHandle: JSValueHandle,
  codeLines: number,
  phase?: 'compile',
): GuestFailureReport {
  let described: GuestFailureReport;
  try {
    const json = vm.callFunction(report, vm.undefined, errorHandle);
    described = JSON.parse(json.toString()) as GuestFailureReport;
    json.dispose();
  } catch {
    described = { name: 'Error', message: 'the snippet failed with an error that cannot be read' };
  }
  if (typeof described.message !== 'string') described.message = String(described.message);
  if (phase !== undefined) described.phase = phase;
  locate(described, codeLines);
  if (described.name === 'RangeError' && /call stack size/i.test(described.message)) described.limit = 'stack';
  else if (described.name === 'InternalError' && described.message === 'out of memory') described.limit = 'memory';
  return described;
}

/**
 * A failure of the engine itself (not the snippet's error): stack and memory exhaustion keep their
 * limits, anything else is `InternalError: <what>: <message>`. `nearMemoryLimit` tells whether a
 * trap is better explained by the memory cap.
 */
export function engineFailure(error: unknown, what: string, nearMemoryLimit: () => boolean): GuestFailureReport {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError && /call stack/i.test(message)) {
    return { name: 'RangeError', message: 'Maximum call stack size exceeded', limit: 'stack' };
  }
  if (/wasm_malloc failed|out of memory/i.test(message)) {
    return { name: 'InternalError', message: 'out of memory', limit: 'memory' };
  }
  if (error instanceof wasm.RuntimeError && nearMemoryLimit()) {
    return { name: 'InternalError', message: `out of memory (${message})`, limit: 'memory' };
  }
  return { name: 'InternalError', message: `${what}: ${message}` };
}

/** The report of a run the worker stopped; a cancel says what an idle run was waiting on. */
export function stoppedFailure(
  reason: StopReason,
  maxOutputBytes: number,
  waiting: { toolCalls: number; timers: number } | undefined,
): GuestFailureReport {
  switch (reason) {
    case 'output':
      return { name: 'RangeError', message: `output over ${maxOutputBytes} bytes`, limit: 'output', what: 'console' };
    case 'timeout':
      return { name: 'InternalError', message: 'interrupted', timeout: true };
    case 'memory':
      return { name: 'InternalError', message: 'out of memory', limit: 'memory' };
    case 'cancelled':
      // what the snippet was waiting on when it was stopped (none at all: it could never finish)
      return { name: 'InternalError', message: 'interrupted', cancelled: true, ...(waiting === undefined ? {} : { waiting }) };
  }
}
