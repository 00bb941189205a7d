// toolexec wasm guest prelude: evaluated inside each fresh QuickJS VM (never on the host) before
// the snippet. It is a function expression: the worker calls it with three host functions (send a
// gateway request, write output, arm/clear a timer) that accept and return only primitives, and
// gets back the bridge the worker drives: deliver(json), finish(value),
// report(error), fire(timerId). Nothing here is reachable from the snippet except what it puts on
// globalThis: `tools`, `console`, `__out` and the run-scoped timers. Gateway messages cross as JSON
// text: the worker relays them without parsing.
//
// Mirrors the node guest (node-guest.mjs) so every backend shows the same surface: the same six
// tools methods and argument coercions, the same console methods and formatting, the same error
// objects for failed calls.
// The file is one expression (its completion value is the function): that is the point.
// eslint-disable-next-line @typescript-eslint/no-unused-expressions
(function (hostSend, hostWrite, hostTimer) {
  'use strict';
  const G = globalThis;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const Str = String;
  const Num = Number;
  const isArray = Array.isArray;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseReject = Promise.reject;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const apply = Reflect.apply;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapHas = Map.prototype.has;
  const mapDelete = Map.prototype.delete;
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const floor = Math.floor;
  const perf = G.performance;
  const perfNow = perf.now;
  const now = () => apply(perfNow, perf, []);

  // ---- the tools bridge ---------------------------------------------------------------------

  const pending = new MapCtor();
  const requestIds = new WeakMapCtor();
  let nextId = 1;

  // A request crosses as the JSON text of a gateway-protocol message; the worker relays it as is.
  function call(type, payload) {
    const id = Str(nextId);
    nextId += 1;
    // the call site, so a failed call points at the snippet's line
    const site = new ErrorCtor('tool call');
    const json = stringify(payload === undefined ? { type, id } : { type, id, payload });
    return new PromiseCtor((resolve, reject) => {
      apply(mapSet, pending, [id, { resolve, reject, site }]);
      try {
        hostSend(id, json);
      } catch (error) {
        apply(mapDelete, pending, [id]);
        throw error;
      }
    });
  }

  function mapArray(items, fn) {
    const out = [];
    for (let i = 0; i < items.length; i += 1)
      defineProperty(out, i, { value: fn(items[i]), writable: true, enumerable: true, configurable: true });
    return out;
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

  function plainError(wire) {
    const payload = wire !== null && typeof wire === 'object' ? wire : {};
    const error = new ErrorCtor(typeof payload.error === 'string' && payload.error !== '' ? payload.error : 'unknown error');
    if (typeof payload.name === 'string' && payload.name !== '') error.name = payload.name;
    if (typeof payload.code === 'string') error.code = payload.code;
    if (payload.details && typeof payload.details === 'object') error.details = payload.details;
    if (typeof payload.toolId === 'string') error.toolId = payload.toolId;
    if (isArray(payload.steps)) error.steps = mapArray(payload.steps, plainStep);
    return error;
  }

  // A reply arrives as the JSON text of a `response` / `error` message.
  function deliver(json) {
    const message = parse(json);
    if (message === null || typeof message !== 'object' || typeof message.id !== 'string') return;
    const entry = apply(mapGet, pending, [message.id]);
    if (entry === undefined) return;
    apply(mapDelete, pending, [message.id]);
    const payload = message.payload;
    if (message.type === 'response') {
      entry.resolve(payload);
      return;
    }
    const error = plainError(payload);
    try {
      defineProperty(error, 'stack', { value: entry.site.stack, writable: true, configurable: true });
    } catch {
      // keep the error's own stack
    }
    apply(weakSet, requestIds, [error, message.id]);
    entry.reject(error);
  }

  // Each method returns a promise and never throws synchronously (like an async function), without
  // the extra promise an async function would add to every call.
  function request(type, build, after) {
    try {
      const promise = call(type, build());
      return after === undefined ? promise : apply(promiseThen, promise, [after]);
    } catch (error) {
      return apply(promiseReject, PromiseCtor, [error]);
    }
  }

  const tools = freeze({
    searchTools(query, limit = 10) {
      return request(
        'search_tools',
        () => ({ query: Str(query ?? ''), limit: Num(limit) }),
        (payload) => payload?.results ?? [],
      );
    },
    listNamespaces() {
      return request(
        'list_namespaces',
        () => undefined,
        (payload) => payload?.namespaces ?? [],
      );
    },
    describeTool(id, level = 'summary') {
      return request('describe_tool', () => ({ id: Str(id), level: Str(level) }));
    },
    listToolExamples(id, max = 0) {
      return request(
        'list_tool_examples',
        () => ({ id: Str(id), max: Num(max) }),
        (payload) => payload?.examples ?? [],
      );
    },
    runTool(id, args) {
      return request('run_tool', () => (args === undefined || args === null ? { id: Str(id) } : { id: Str(id), args }));
    },
    runChain(steps) {
      return request(
        'run_chain',
        () => ({ steps: isArray(steps) ? steps : [] }),
        (payload) => ({
          result: payload?.result,
          steps: isArray(payload?.steps) ? mapArray(payload.steps, plainStep) : [],
        }),
      );
    },
  });

  // ---- console --------------------------------------------------------------------------------

  function formatValue(value) {
    if (typeof value === 'string') return value;
    if (value instanceof ErrorCtor) return Str(value);
    try {
      const json = stringify(value);
      return json === undefined ? Str(value) : json;
    } catch {
      return Str(value);
    }
  }

  function format(args) {
    let text = '';
    for (let i = 0; i < args.length; i += 1) text += (i === 0 ? '' : ' ') + formatValue(args[i]);
    return `${text}\n`;
  }

  const out = (...args) => hostWrite(1, format(args));
  const err = (...args) => hostWrite(2, format(args));
  const timings = new MapCtor();
  const counts = new MapCtor();
  const elapsed = (label) => `${label}: ${(now() - (apply(mapGet, timings, [label]) ?? 0)).toFixed(3)}ms`;
  const console = {
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
    time: (label = 'default') => void apply(mapSet, timings, [label, now()]),
    timeLog: (label = 'default', ...args) => out(elapsed(label), ...args),
    timeEnd: (label = 'default') => {
      out(elapsed(label));
      apply(mapDelete, timings, [label]);
    },
    count: (label = 'default') => {
      const n = (apply(mapGet, counts, [label]) ?? 0) + 1;
      apply(mapSet, counts, [label, n]);
      out(`${label}: ${n}`);
    },
    countReset: (label = 'default') => void apply(mapDelete, counts, [label]),
  };

  // ---- run-scoped timers (they die with the VM) -------------------------------------------------

  const timers = new MapCtor();
  let nextTimer = 1;

  function clampDelay(delay) {
    const ms = Num(delay);
    return ms >= 1 && ms <= 2147483647 ? floor(ms) : 1;
  }

  function addTimer(callback, delay, args, repeat) {
    if (typeof callback !== 'function') throw new TypeErrorCtor('The "callback" argument must be of type function');
    const id = nextTimer;
    nextTimer += 1;
    const ms = clampDelay(delay);
    apply(mapSet, timers, [id, { callback, args, repeat, ms }]);
    hostTimer(1, id, ms);
    return id;
  }

  function clearTimer(id) {
    const key = Num(id);
    if (!apply(mapHas, timers, [key])) return;
    apply(mapDelete, timers, [key]);
    hostTimer(0, key, 0);
  }

  function fire(id) {
    const timer = apply(mapGet, timers, [id]);
    if (timer === undefined) return;
    if (timer.repeat) hostTimer(1, id, timer.ms);
    else apply(mapDelete, timers, [id]);
    apply(timer.callback, undefined, timer.args);
  }

  // ---- the run's outcome --------------------------------------------------------------------

  function finish(value) {
    const result = value === undefined ? G.__out : value;
    return result === undefined ? undefined : stringify(result);
  }

  function report(error) {
    const isObject = error !== null && (typeof error === 'object' || typeof error === 'function');
    const r = { name: 'Error' };
    try {
      if (isObject && typeof error.name === 'string') r.name = error.name;
    } catch {
      // keep the default
    }
    try {
      r.message = isObject && typeof error.message === 'string' ? error.message : Str(error);
    } catch {
      r.message = 'the snippet threw a value that cannot be printed';
    }
    try {
      if (isObject && typeof error.code === 'string') r.code = error.code;
    } catch {
      // no code
    }
    try {
      if (isObject && typeof error.stack === 'string') r.stack = error.stack.slice(0, 8192);
    } catch {
      // no stack
    }
    if (isObject) {
      const id = apply(weakGet, requestIds, [error]);
      if (id !== undefined) r.requestId = id;
    }
    return stringify(r);
  }

  G.tools = tools;
  G.console = console;
  G.__out = undefined;
  G.setTimeout = (callback, delay, ...args) => addTimer(callback, delay, args, false);
  G.setInterval = (callback, delay, ...args) => addTimer(callback, delay, args, true);
  G.clearTimeout = clearTimer;
  G.clearInterval = clearTimer;
  return { deliver, finish, report, fire };
});
