/**
 * The `console` a snippet sees, the same in every sandbox (node guest, QuickJS prelude): the usual
 * methods, each line formatted once (see `formatValue`) and written to the guest's stdout (1) or stderr (2).
 */
import { formatValue } from './console-format.js';
import { GuestMap, deleteIn, getIn, now, setIn } from './primordials.js';

/** Where console output goes: 1 (stdout) or 2 (stderr), one formatted line at a time. */
export type ConsoleWrite = (fd: 1 | 2, text: string) => void;

/** The global `console` of a snippet. */
export interface GuestConsole {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  debug(...args: unknown[]): void;
  dir(value: unknown): void;
  table(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  trace(...args: unknown[]): void;
  assert(condition: unknown, ...args: unknown[]): void;
  group(...args: unknown[]): void;
  groupCollapsed(...args: unknown[]): void;
  groupEnd(): void;
  time(label?: string): void;
  timeLog(label?: string, ...args: unknown[]): void;
  timeEnd(label?: string): void;
  count(label?: string): void;
  countReset(label?: string): void;
}

/** The arguments of one console call as one line. */
export function formatLine(args: readonly unknown[]): string {
  let text = '';
  for (let i = 0; i < args.length; i += 1) text += (i === 0 ? '' : ' ') + formatValue(args[i]);
  return `${text}\n`;
}

/** A console writing through `write`. */
export function createConsole(write: ConsoleWrite): GuestConsole {
  const out = (...args: unknown[]) => write(1, formatLine(args));
  const err = (...args: unknown[]) => write(2, formatLine(args));
  const timings = new GuestMap<string, number>();
  const counts = new GuestMap<string, number>();
  const elapsed = (label: string) => `${label}: ${(now() - (getIn(timings, label) ?? 0)).toFixed(3)}ms`;
  return {
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
    time: (label = 'default') => setIn(timings, label, now()),
    timeLog: (label = 'default', ...args) => out(elapsed(label), ...args),
    timeEnd: (label = 'default') => {
      out(elapsed(label));
      deleteIn(timings, label);
    },
    count: (label = 'default') => {
      const n = (getIn(counts, label) ?? 0) + 1;
      setIn(counts, label, n);
      out(`${label}: ${n}`);
    },
    countReset: (label = 'default') => deleteIn(counts, label),
  };
}
