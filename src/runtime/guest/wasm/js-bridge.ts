/**
 * The host's calls into the prelude's bridge of a run's VM (see the prelude's `PreludeBridge`).
 */
import { JSException, type JSValueHandle, type QuickJS } from 'quickjs-wasi';
import type { GuestPendingCall } from '../../gateway/codec.js';
import type { PreludeHandles } from './sandbox.js';

/**
 * Calls a bridge function of the prelude with one argument (made, then disposed, here): what it
 * threw, else whether it returned `false` (refused).
 */
export function callBridge(
  vm: QuickJS,
  fn: JSValueHandle,
  argument: (vm: QuickJS) => JSValueHandle,
): { error: unknown } | { refused: boolean } {
  let handle: JSValueHandle | undefined;
  try {
    handle = argument(vm);
    const result = vm.callFunction(fn, vm.undefined, handle);
    const refused = result.isBool && !result.toBoolean();
    result.dispose();
    return { refused };
  } catch (error) {
    return { error: error ?? new Error('the sandbox threw undefined') };
  } finally {
    handle?.dispose();
  }
}

/** The tool calls the snippet left unanswered, from the prelude's bridge (the host checks their shape). */
export function pendingCalls(vm: QuickJS, bridge: PreludeHandles): GuestPendingCall[] | undefined {
  try {
    const json = vm.callFunction(bridge.pending, vm.undefined);
    const text = json.isString ? json.toString() : undefined;
    json.dispose();
    return text === undefined ? undefined : (JSON.parse(text) as GuestPendingCall[]);
  } catch (error) {
    if (error instanceof JSException) error.dispose();
    return undefined;
  }
}
