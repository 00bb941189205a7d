/**
 * Run-scoped timers inside the QuickJS VM: `setTimeout` / `setInterval` and their `clear*`, armed
 * on the host (the worker) and fired back into the VM; they die with the VM.
 */
import { GuestMap, GuestNumber, GuestTypeError, apply, deleteIn, floor, getIn, hasIn, setIn } from '../shared/primordials.js';

/** Arms (`op` 1) or clears (`op` 0) timer `id` on the host, `ms` from now. */
export type HostTimer = (op: 0 | 1, id: number, ms: number) => void;

/** The timer globals and the entry the host fires a timer through. */
export interface RunTimers {
  setTimeout: (callback: unknown, delay?: unknown, ...args: unknown[]) => number;
  setInterval: (callback: unknown, delay?: unknown, ...args: unknown[]) => number;
  clearTimeout: (id: unknown) => void;
  clearInterval: (id: unknown) => void;
  /** Runs timer `id`'s callback (and re-arms an interval). */
  fire: (id: number) => void;
}

interface Timer {
  callback: (...args: unknown[]) => unknown;
  args: unknown[];
  repeat: boolean;
  ms: number;
}

/** setTimeout's largest delay (longer ones fire at once). */
const MAX_DELAY_MS = 2147483647;

function clampDelay(delay: unknown): number {
  const ms = GuestNumber(delay);
  return ms >= 1 && ms <= MAX_DELAY_MS ? floor(ms) : 1;
}

/** The timers of one VM, armed through `hostTimer`. */
export function createTimers(hostTimer: HostTimer): RunTimers {
  const timers = new GuestMap<number, Timer>();
  let nextTimer = 1;

  function addTimer(callback: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
    if (typeof callback !== 'function') throw new GuestTypeError('The "callback" argument must be of type function');
    const id = nextTimer;
    nextTimer += 1;
    const ms = clampDelay(delay);
    setIn(timers, id, { callback: callback as Timer['callback'], args, repeat, ms });
    hostTimer(1, id, ms);
    return id;
  }

  function clearTimer(id: unknown): void {
    const key = GuestNumber(id);
    if (!hasIn(timers, key)) return;
    deleteIn(timers, key);
    hostTimer(0, key, 0);
  }

  return {
    setTimeout: (callback, delay, ...args) => addTimer(callback, delay, args, false),
    setInterval: (callback, delay, ...args) => addTimer(callback, delay, args, true),
    clearTimeout: clearTimer,
    clearInterval: clearTimer,
    fire: (id) => {
      const timer = getIn(timers, id);
      if (timer === undefined) return;
      if (timer.repeat) hostTimer(1, id, timer.ms);
      else deleteIn(timers, id);
      apply(timer.callback, undefined, timer.args);
    },
  };
}
