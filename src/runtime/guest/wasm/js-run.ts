/**
 * One JavaScript run in the worker: a fresh QuickJS VM, the snippet compiled as the body of an
 * async function, the VM driven until its promise settles, and exactly one outcome posted on the
 * run's port. The VM reaches the host only through the three host functions below.
 */
import type { MessagePort } from 'node:worker_threads';
import { JSException, type JSValueHandle, type QuickJS } from 'quickjs-wasi';
import type { GuestFailureReport, GuestOutcomeMessage, GuestPendingCall, GuestResultMessage } from '../../gateway/codec.js';
import { callBridge, pendingCalls } from './js-bridge.js';
import { describeError, engineFailure, stoppedFailure, type StopReason } from './js-failure.js';
import { UnhandledRejections } from './js-rejections.js';
import { MAX_TIMERS, RunTimers } from './js-timers.js';
import { ToolCalls } from './js-tool-calls.js';
import type { JsRunMessage } from './messages.js';
import { Output, byteLength, post } from './output.js';
import type { ReplyWait } from './reply-wait.js';
import { disposeSandbox, type Sandbox, type SandboxMaker, type SandboxRun } from './sandbox.js';

const SNIPPET_FILE = 'toolexec-snippet.js';
const ENGINE_FAILED = 'the JavaScript engine failed';

/** What a run needs from its worker. */
export interface JsRunContext {
  sandboxes: SandboxMaker;
  replyWait: ReplyWait;
  /** The seq of a run to cancel, written by the host. */
  cancelCell: Int32Array;
  /** Called once the run is over and cleaned up. */
  onIdle: (seq: number) => void;
}

/** A thrown string: no host stack enters the VM. */
function refuse(message: string): never {
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  throw message;
}

/** One snippet run. */
export class JsRun implements SandboxRun {
  readonly seq: number;
  readonly #context: JsRunContext;
  readonly #message: JsRunMessage;
  readonly #port: MessagePort;
  readonly #codeLines: number;
  readonly #deadline: number;
  readonly #output: Output;
  readonly #calls: ToolCalls;
  readonly #timers = new RunTimers();
  readonly #rejections = new UnhandledRejections();
  #stop: StopReason | undefined;
  #cancelledIdle = false;
  #done = false;
  #settling = false;
  /** The tool calls unanswered when the snippet's promise settled. */
  #pendingAtReturn: GuestPendingCall[] | undefined;
  #sandbox: Sandbox | undefined;
  #main: JSValueHandle | undefined;

  constructor(message: JsRunMessage, context: JsRunContext) {
    this.seq = message.seq;
    this.#context = context;
    this.#message = message;
    this.#port = message.port;
    this.#codeLines = message.code.split('\n').length;
    this.#deadline = Date.now() + message.timeoutMs;
    this.#output = new Output(this.#port, message.maxOutputBytes);
    this.#calls = new ToolCalls(message, this.#output, context.replyWait);
    this.#port.on('message', (reply: unknown) => this.#onReply(reply));
    this.#port.on('close', () => this.cancel(this.seq));
  }

  get #vm(): QuickJS {
    return (this.#sandbox as Sandbox).vm;
  }

  /** Takes a VM, compiles the snippet and starts driving it. */
  async start(): Promise<void> {
    let sandbox: Sandbox;
    try {
      sandbox = await this.#context.sandboxes.take(this.#message.memoryBytes, this.#message.maxStackBytes);
    } catch (error) {
      this.#fail(engineFailure(error, 'the JavaScript engine could not start', () => false));
      return;
    }
    if (this.#done) {
      disposeSandbox(sandbox);
      return;
    }
    this.#sandbox = sandbox;
    sandbox.run = this;
    if (this.#stop !== undefined) {
      this.#endStopped();
      return;
    }
    const vm = sandbox.vm;
    let factory: JSValueHandle;
    try {
      factory = vm.evalCode(`(async function () {\n${this.#message.code}\n})`, SNIPPET_FILE);
    } catch (error) {
      this.#failWithException(error, 'compile');
      return;
    }
    try {
      this.#main = vm.callFunction(factory, vm.undefined);
    } catch (error) {
      this.#failWithException(error);
      return;
    } finally {
      factory.dispose();
    }
    this.#pump();
  }

  // -- host functions (called from inside the VM) --

  interrupt(): boolean {
    if (this.#stop !== undefined) return true;
    if (Atomics.load(this.#context.cancelCell, 0) === this.seq) {
      this.#stop = 'cancelled';
      return true;
    }
    const now = Date.now();
    if (now > this.#deadline) {
      this.#stop = 'timeout';
      return true;
    }
    this.#output.maybeFlush(now);
    return false;
  }

  /** Relays a gateway request (the JSON text of a protocol message) to the host, unparsed. */
  send(idHandle: JSValueHandle | undefined, jsonHandle: JSValueHandle | undefined): undefined {
    if (this.#done || this.#stop !== undefined) refuse('the run is over');
    if (!idHandle?.isString || !jsonHandle?.isString) refuse('bad gateway request');
    const refused = this.#calls.send(idHandle.toString(), jsonHandle.toString());
    if (refused !== undefined) queueMicrotask(() => this.#onReply(refused));
    return undefined;
  }

  write(streamHandle: JSValueHandle | undefined, textHandle: JSValueHandle | undefined): undefined {
    if (this.#done) return undefined;
    if (this.#stop === 'output') refuse('output limit exceeded');
    if (!textHandle?.isString) refuse('console output must be a string');
    const stream = streamHandle?.isNumber && streamHandle.toNumber() === 2 ? 'stderr' : 'stdout';
    if (!this.#output.add(stream, textHandle.toString())) {
      this.#stop = 'output';
      refuse(`output limit of ${this.#output.maxBytes} bytes exceeded`);
    }
    return undefined;
  }

  timer(opHandle: JSValueHandle | undefined, idHandle: JSValueHandle | undefined, msHandle: JSValueHandle | undefined): undefined {
    if (this.#done || this.#stop !== undefined) return undefined;
    if (!opHandle?.isNumber || !idHandle?.isNumber || !msHandle?.isNumber) refuse('bad timer request');
    const id = idHandle.toNumber();
    this.#timers.clear(id);
    if (opHandle.toNumber() === 0) return undefined;
    if (!this.#timers.arm(id, msHandle.toNumber(), (fired) => this.#fire(fired))) refuse(`too many timers (at most ${MAX_TIMERS})`);
    return undefined;
  }

  unhandled(promise: JSValueHandle, reason: JSValueHandle, handled: boolean): void {
    if (this.#done) return;
    this.#rejections.track(promise, reason, handled);
  }

  // -- host events --

  /** A reply from the host: the JSON text of a `response` / `error` message, relayed unparsed. */
  #onReply(reply: unknown): void {
    if (this.#done || typeof reply !== 'string') return;
    this.#deliver(reply);
    this.#pump();
  }

  /**
   * Hands a reply to the VM. A reply the VM cannot parse stops the run at once with the memory
   * limit (the snippet could never see it); anything else the delivery throws fails the run, as an
   * uncaught exception would (never a call left pending until the deadline).
   */
  #deliver(reply: string): void {
    this.#calls.answered(reply);
    if (this.#stop !== undefined || this.#sandbox === undefined) return;
    const outcome = callBridge(this.#vm, this.#sandbox.bridge.deliver, (vm) => vm.newString(reply));
    if ('error' in outcome) this.#failWithException(outcome.error);
    else if (outcome.refused) this.#stop ??= 'memory';
  }

  #fire(id: number): void {
    if (this.#done || this.#stop !== undefined || this.#sandbox === undefined) return;
    const outcome = callBridge(this.#vm, this.#sandbox.bridge.fire, (vm) => vm.newNumber(id));
    // an uncaught exception in a timer callback fails the run (as in node)
    if ('error' in outcome) this.#failWithException(outcome.error);
    else this.#pump();
  }

  /** Stops run `seq` if it is this one (a busy VM notices through the interrupt handler instead). */
  cancel(seq: number): void {
    if (seq !== this.seq || this.#done) return;
    this.#stop ??= 'cancelled';
    this.#cancelledIdle = true;
    this.#endStopped();
  }

  // -- driving the VM --

  /** Runs the VM's pending jobs and settles the run if it is over. */
  #step(): void {
    if (this.#done || this.#settling) return;
    let jobError: unknown;
    try {
      this.#vm.executePendingJobs();
    } catch (error) {
      jobError = error;
    }
    if (this.#stop !== undefined) {
      this.#endStopped();
      return;
    }
    if (jobError !== undefined) {
      this.#fail(this.#engineFailure(jobError));
      return;
    }
    const main = this.#main as JSValueHandle;
    if (main.promiseState !== 0) {
      this.#settling = true;
      // read now: a reply that arrives while the outcome is resolved must not hide a missing await
      this.#pendingAtReturn = pendingCalls(this.#vm, (this.#sandbox as Sandbox).bridge);
      void this.#vm.resolvePromise(main).then(
        (outcome) => this.#complete(outcome),
        (error: unknown) => this.#fail(this.#engineFailure(error)),
      );
      return;
    }
    const rejected = this.#rejections.first(main.identity);
    if (rejected !== undefined) {
      this.#failWith(rejected);
      return;
    }
    this.#output.flush();
  }

  /**
   * Drives the VM: runs its jobs; while it waits on tool calls, takes the replies that have already
   * arrived in place (no trip through the event loop, no recursion), otherwise returns and lets the
   * port's message listener deliver the next one.
   */
  #pump(): void {
    for (;;) {
      this.#step();
      if (this.#done || this.#settling || this.#calls.size === 0) return;
      const received = this.#calls.take(this.#timers.size > 0);
      if (received === undefined) return;
      if (typeof received.message === 'string') this.#deliver(received.message);
    }
  }

  #complete(outcome: { value: JSValueHandle } | { error: JSValueHandle }): void {
    if (this.#done) return;
    if (this.#stop !== undefined) {
      this.#endStopped();
      return;
    }
    if ('value' in outcome) this.#succeed(outcome.value);
    else this.#failWith(outcome.error);
  }

  #succeed(valueHandle: JSValueHandle): void {
    const vm = this.#vm;
    const maxResultBytes = this.#message.maxResultBytes;
    let text: string | undefined;
    let tooLarge: boolean;
    let maxHandle: JSValueHandle | undefined;
    try {
      maxHandle = vm.newNumber(maxResultBytes);
      const json = vm.callFunction((this.#sandbox as Sandbox).bridge.finish, vm.undefined, valueHandle, maxHandle);
      text = json.isString ? json.toString() : undefined;
      tooLarge = json.isNull;
      json.dispose();
    } catch (error) {
      if (this.#stop !== undefined) {
        this.#endStopped();
        return;
      }
      if (error instanceof JSException) {
        const reason = this.#describe(error.handle);
        error.dispose();
        this.#fail({ name: 'TypeError', message: `the result is not JSON-serializable: ${reason.message}` });
        return;
      }
      this.#fail(this.#engineFailure(error));
      return;
    } finally {
      maxHandle?.dispose();
    }
    const pending = this.#pendingAtReturn;
    if (this.#stop !== undefined) {
      this.#endStopped();
      return;
    }
    if (tooLarge || (text !== undefined && byteLength(text) > maxResultBytes)) {
      this.#fail({ name: 'RangeError', message: `the result is larger than ${maxResultBytes} bytes`, limit: 'result' });
      return;
    }
    const result: GuestResultMessage = text === undefined ? { type: 'result' } : { type: 'result', json: text };
    // calls the snippet started and never awaited (a missing `await`?): the host reports them
    if (pending !== undefined) result.pending = pending;
    this.#end(result);
  }

  #failWithException(error: unknown, phase?: 'compile'): void {
    if (this.#stop !== undefined) {
      this.#endStopped();
      return;
    }
    if (!(error instanceof JSException)) {
      this.#fail(this.#engineFailure(error));
      return;
    }
    const report = this.#describe(error.handle, phase);
    error.dispose();
    if (this.#stop !== undefined) this.#endStopped();
    else this.#fail(report);
  }

  #failWith(errorHandle: JSValueHandle): void {
    const report = this.#describe(errorHandle);
    if (this.#stop !== undefined) this.#endStopped();
    else this.#fail(report);
  }

  #describe(errorHandle: JSValueHandle, phase?: 'compile'): GuestFailureReport {
    return describeError(this.#vm, (this.#sandbox as Sandbox).bridge.report, errorHandle, this.#codeLines, phase);
  }

  #engineFailure(error: unknown): GuestFailureReport {
    return engineFailure(error, ENGINE_FAILED, () => this.#nearMemoryLimit());
  }

  #nearMemoryLimit(): boolean {
    try {
      return this.#vm.getMemoryUsage().mallocSize > this.#message.memoryBytes * 0.9;
    } catch {
      return false;
    }
  }

  #endStopped(): void {
    const waiting = this.#cancelledIdle ? { toolCalls: this.#calls.size, timers: this.#timers.size } : undefined;
    this.#fail(stoppedFailure(this.#stop ?? 'cancelled', this.#output.maxBytes, waiting));
  }

  #fail(report: GuestFailureReport): void {
    this.#end({ type: 'failed', error: report });
  }

  #end(message: GuestOutcomeMessage): void {
    if (this.#done) return;
    this.#done = true;
    this.#output.flush();
    post(this.#port, message);
    this.#timers.clearAll();
    this.#calls.clear();
    this.#port.removeAllListeners('message');
    const sandbox = this.#sandbox;
    if (sandbox !== undefined) sandbox.run = undefined;
    // ready before the VM is freed: a next run message is only handled after this turn anyway
    this.#context.onIdle(this.seq);
    if (sandbox !== undefined) {
      this.#rejections.dispose();
      disposeSandbox(sandbox);
    }
    void this.#context.sandboxes.prepare(this.#message.memoryBytes, this.#message.maxStackBytes);
  }
}
