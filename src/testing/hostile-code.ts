/**
 * The hostile-code suite: snippets that try to leave the sandbox (host files, environment, modules,
 * network, constructor chains, prototype pollution, hostile values) or to exhaust it (endless
 * loops, long builtins, memory, stack, output, tool calls), run against a backend that claims
 * isolation. Every case checks the outcome, that the host stayed responsive (event-loop lag, RSS),
 * and that nothing was left running (handles, threads, child processes back to baseline).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorCode } from '../model/index.js';
import type { ExecuteRequest, ExecuteResult, RuntimeBackend } from '../runtime/index.js';
import { ProbeGateway, settled, snapshot, startHostProbe } from './hostile-probes.js';
import {
  HOSTILE_VALUES_SNIPPET,
  POLLUTION_SNIPPET,
  TAMPERING_SNIPPET,
  envSnippet,
  escapeSnippet,
  modulesSnippet,
  readFileSnippet,
  tcpSnippet,
  withHostSecret,
} from './hostile-snippets.js';

/** The cases of {@link hostileCodeSuite}. */
export const HOSTILE_CASES = [
  'secret-file',
  'etc-passwd',
  'process-env',
  'host-modules',
  'tcp-connect',
  'endless-loop',
  'long-builtin',
  'memory-bomb',
  'deep-recursion',
  'deep-nesting',
  'output-flood',
  'tool-call-flood',
  'constructor-escape',
  'prototype-pollution',
  'hostile-values',
  'intrinsics-tampering',
] as const;

/** One case of {@link hostileCodeSuite}. */
export type HostileCase = (typeof HOSTILE_CASES)[number];

/** What a case must end with: a successful run (`'ok'`), or a failure with one of these codes. */
export type HostileOutcome = 'ok' | readonly ErrorCode[];

/** Options of {@link hostileCodeSuite}. */
export interface HostileCodeSuiteOptions {
  /** Merged into every request's metadata (e.g. an opt-in). */
  metadata?: Record<string, unknown>;
  /** `timeoutMs` of the runaway cases. @defaultValue 500 */
  timeoutMs?: number;
  /** How long after its timeout a runaway run may take to end. @defaultValue 3000 */
  stopWithinMs?: number;
  /** `limits.memoryBytes` of the memory bomb. @defaultValue 64 MiB */
  memoryBytes?: number;
  /** Per-case outcome overrides (the defaults are the strictest sensible ones). */
  expect?: Partial<Record<HostileCase, HostileOutcome>>;
  /**
   * The sandbox has a filesystem of its own (a container): `/etc/passwd` may be readable there (it
   * is the sandbox's), so the `etc-passwd` case only checks that the run completes. @defaultValue false
   */
  ownFilesystem?: boolean;
  /** Largest growth of the host's RSS during one case. @defaultValue 512 MiB */
  maxRssGrowthBytes?: number;
  /** Largest event-loop lag of the host during one case. @defaultValue 1000 */
  maxEventLoopLagMs?: number;
  /** How long handles, threads and child processes may take to return to baseline. @defaultValue 5000 */
  settleMs?: number;
  /** Vitest timeout of each case. @defaultValue 60000 */
  testTimeoutMs?: number;
}

const DEFAULT_OUTCOMES: Record<HostileCase, HostileOutcome> = {
  'secret-file': 'ok',
  'etc-passwd': 'ok',
  'process-env': 'ok',
  'host-modules': 'ok',
  'tcp-connect': 'ok',
  'endless-loop': ['TIMEOUT'],
  'long-builtin': ['TIMEOUT', 'RESOURCE_LIMIT'],
  'memory-bomb': ['RESOURCE_LIMIT'],
  'deep-recursion': ['RESOURCE_LIMIT', 'CODE_EXECUTION'],
  'deep-nesting': ['RESOURCE_LIMIT', 'CODE_EXECUTION'],
  'output-flood': ['RESOURCE_LIMIT'],
  'tool-call-flood': ['LIMIT_EXCEEDED'],
  'constructor-escape': 'ok',
  'prototype-pollution': 'ok',
  'hostile-values': 'ok',
  'intrinsics-tampering': 'ok',
};

type Failure = Error & { code?: string; details?: Record<string, unknown> };

/** The timeout of the probing (non-runaway) cases. */
const PROBE_TIMEOUT_MS = 15_000;

/** What one run ended with. */
interface RunOutcome {
  result?: ExecuteResult;
  error?: Failure;
  elapsedMs: number;
}

// ---- the suite -----------------------------------------------------------------------------------------

/**
 * Registers the hostile-code suite for `name`.
 *
 * @param factory Creates the backend (once for the suite; `close()` is called at the end).
 * @remarks Each case asserts its outcome (per-case overrides in `options.expect`), the absence of
 * any leak or host side effect, an event-loop lag and RSS growth under the limits during the run,
 * a working backend afterwards (`return 'alive'`), and handles / threads / child processes back to
 * their level before the case.
 */
export function hostileCodeSuite(
  name: string,
  factory: () => RuntimeBackend | Promise<RuntimeBackend>,
  options: HostileCodeSuiteOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 500;
  const stopWithinMs = options.stopWithinMs ?? 3_000;
  const memoryBytes = options.memoryBytes ?? 64 * 1024 * 1024;
  const maxRssGrowthBytes = options.maxRssGrowthBytes ?? 512 * 1024 * 1024;
  const maxEventLoopLagMs = options.maxEventLoopLagMs ?? 1_000;
  const settleMs = options.settleMs ?? 5_000;
  const testTimeoutMs = options.testTimeoutMs ?? 60_000;
  const outcomeOf = (which: HostileCase): HostileOutcome => options.expect?.[which] ?? DEFAULT_OUTCOMES[which];

  describe(`hostile code: ${name}`, () => {
    let backend: RuntimeBackend;
    let dir: string;
    let gateway: ProbeGateway;

    beforeAll(async () => {
      backend = await factory();
      dir = mkdtempSync(join(tmpdir(), 'toolexec-hostile-'));
      // warm up: fill any pool so that the baselines below are stable
      await Promise.all([1, 2, 3, 4].map(() => backend.execute(request('return 1'))));
    }, testTimeoutMs);

    afterAll(async () => {
      await backend?.close?.();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    function request(code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest {
      gateway = new ProbeGateway();
      // probing snippets end on their own; a backend they wedge fails fast instead of at 30 s
      return { code, gateway, timeoutMs: PROBE_TIMEOUT_MS, ...extra, metadata: { ...options.metadata, ...extra.metadata } };
    }

    async function execute(code: string, extra: Partial<ExecuteRequest> = {}): Promise<RunOutcome> {
      const started = performance.now();
      try {
        const result = await backend.execute(request(code, extra));
        return { result, elapsedMs: performance.now() - started };
      } catch (err) {
        return { error: err as Failure, elapsedMs: performance.now() - started };
      }
    }

    /** Everything a run showed to the outside, as one string. */
    function visible(outcome: RunOutcome): string {
      const result = outcome.result ?? (outcome.error?.details?.result as ExecuteResult | undefined);
      const parts = [outcome.error?.message ?? '', JSON.stringify(outcome.error?.details ?? {}), JSON.stringify(result?.value ?? null)];
      parts.push(result?.stdout ?? '', result?.stderr ?? '');
      return parts.join('\n');
    }

    function expectOutcome(which: HostileCase, outcome: RunOutcome): void {
      const expected = outcomeOf(which);
      if (expected === 'ok') {
        expect(
          outcome.error,
          `${which}: expected the run to succeed, got ${outcome.error?.code}: ${outcome.error?.message}`,
        ).toBeUndefined();
        expect(outcome.result).toBeDefined();
        return;
      }
      expect(outcome.error, `${which}: expected one of ${expected.join(', ')}, but the run succeeded`).toBeDefined();
      expect(expected, `${which}: got ${outcome.error?.code}: ${outcome.error?.message}`).toContain(outcome.error?.code);
      expect(outcome.error?.details?.result, 'a failed run carries its partial result').toBeDefined();
    }

    /** Runs a case body with the host probes and the after-checks every case shares. */
    function hostileCase(which: HostileCase, title: string, body: () => Promise<void>): void {
      it(
        `${which}: ${title}`,
        async () => {
          const base = snapshot();
          const probe = startHostProbe();
          try {
            await body();
          } finally {
            const host = probe.stop();
            expect(host.maxLagMs, `the host's event loop lagged ${Math.round(host.maxLagMs)}ms`).toBeLessThan(maxEventLoopLagMs);
            expect(host.rssGrowthBytes, `the host's RSS grew by ${host.rssGrowthBytes} bytes`).toBeLessThan(maxRssGrowthBytes);
          }
          const alive = await execute("return 'alive'");
          expect(alive.error?.message).toBeUndefined();
          expect(alive.result?.value).toBe('alive');
          expect(await settled(base, settleMs), 'resources left behind').toEqual([]);
        },
        testTimeoutMs,
      );
    }

    hostileCase('secret-file', 'a secret file on the host never reaches the result', async () => {
      const secret = `secret-${randomBytes(16).toString('hex')}`;
      const file = join(dir, 'secret.txt');
      writeFileSync(file, secret);
      const outcome = await execute(readFileSnippet(file));
      expectOutcome('secret-file', outcome);
      expect(visible(outcome)).not.toContain(secret);
    });

    hostileCase('etc-passwd', '/etc/passwd of the host is not readable', async () => {
      const outcome = await execute(readFileSnippet('/etc/passwd'));
      expectOutcome('etc-passwd', outcome);
      if (options.ownFilesystem !== true) expect(visible(outcome)).not.toMatch(/root:[^:\n]*:0:0:/);
    });

    hostileCase('process-env', 'a secret in the host environment never reaches the result', async () => {
      await withHostSecret('env-secret', async (key, secret) => {
        const outcome = await execute(envSnippet(key));
        expectOutcome('process-env', outcome);
        expect(visible(outcome)).not.toContain(secret);
      });
    });

    hostileCase('host-modules', 'child_process, fs and net cannot be loaded to act on the host', async () => {
      const marker = join(dir, `pwned-${randomBytes(6).toString('hex')}`);
      const outcome = await execute(modulesSnippet(marker));
      expectOutcome('host-modules', outcome);
      expect(existsSync(marker), 'the snippet created a file on the host').toBe(false);
    });

    hostileCase('tcp-connect', 'no connection reaches a server on 127.0.0.1', async () => {
      let connections = 0;
      const server: Server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as { port: number }).port;
        const outcome = await execute(tcpSnippet(port));
        expectOutcome('tcp-connect', outcome);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(connections, 'connections that reached the host server').toBe(0);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    hostileCase('endless-loop', 'while (true) {} stops at the timeout', async () => {
      const outcome = await execute('while (true) {}', { timeoutMs });
      expectOutcome('endless-loop', outcome);
      expect(outcome.elapsedMs).toBeLessThan(timeoutMs + stopWithinMs);
    });

    hostileCase('long-builtin', 'a long builtin call (no interrupt checks inside) still stops', async () => {
      const code = "const big = new Array(3e6).fill('abcdefgh');\nfor (;;) JSON.stringify(big);";
      const outcome = await execute(code, { timeoutMs, limits: { memoryBytes: 256 * 1024 * 1024 } });
      expectOutcome('long-builtin', outcome);
      expect(outcome.elapsedMs).toBeLessThan(timeoutMs + stopWithinMs);
    });

    hostileCase('memory-bomb', 'allocating 2 GB hits the memory limit, not the host', async () => {
      const code = 'const keep = [];\nfor (let i = 0; i < 128; i++) keep.push(new Array(1 << 20).fill(i + 0.5));\nreturn keep.length;';
      const outcome = await execute(code, { timeoutMs: 30_000, limits: { memoryBytes } });
      expectOutcome('memory-bomb', outcome);
      if (outcome.error?.code === 'RESOURCE_LIMIT') expect(outcome.error.details?.limit).toBe('memory');
    });

    hostileCase('deep-recursion', 'unbounded recursion is contained', async () => {
      const outcome = await execute('function f(n) { return f(n + 1) + 1; }\nreturn f(0);', { timeoutMs: 30_000 });
      expectOutcome('deep-recursion', outcome);
    });

    hostileCase('deep-nesting', 'serializing a deeply nested value is contained', async () => {
      const code = 'let o = {};\nfor (let i = 0; i < 100000; i++) o = { o };\nreturn o;';
      const outcome = await execute(code, { timeoutMs: 30_000 });
      expectOutcome('deep-nesting', outcome);
    });

    hostileCase('output-flood', 'printing 100 MB stops at the output cap, quickly', async () => {
      const maxOutputBytes = 1024 * 1024;
      const code = "const chunk = 'x'.repeat(1 << 20);\nfor (let i = 0; i < 100; i++) console.log(chunk);\nreturn 'printed';";
      const outcome = await execute(code, { timeoutMs: 30_000, limits: { maxOutputBytes } });
      expectOutcome('output-flood', outcome);
      expect(outcome.elapsedMs).toBeLessThan(10_000);
      const partial = outcome.error?.details?.result as ExecuteResult | undefined;
      if (partial !== undefined) expect(partial.stdout.length + partial.stderr.length).toBeLessThanOrEqual(maxOutputBytes);
      if (outcome.error?.code === 'RESOURCE_LIMIT') expect(outcome.error.details?.limit).toBe('output');
    });

    hostileCase('tool-call-flood', 'tool calls beyond maxToolCalls never reach the gateway', async () => {
      const sequential = await execute("for (let i = 0; i < 1000; i++) await tools.runTool('hostile:probe', { i });", {
        limits: { maxToolCalls: 10 },
      });
      expectOutcome('tool-call-flood', sequential);
      expect(gateway.calls).toHaveLength(10);
      const concurrent = await execute("await Promise.all(Array.from({ length: 500 }, (_, i) => tools.runTool('hostile:probe', { i })));", {
        limits: { maxToolCalls: 10 },
      });
      expectOutcome('tool-call-flood', concurrent);
      expect(gateway.calls.length).toBeLessThanOrEqual(10);
    });

    hostileCase('constructor-escape', 'constructor chains do not reach the host process', async () => {
      await withHostSecret('escape-secret', async (key, secret) => {
        const outcome = await execute(escapeSnippet(key));
        expectOutcome('constructor-escape', outcome);
        expect(visible(outcome)).not.toContain(secret);
        const facts = (outcome.result?.value ?? {}) as Record<string, unknown>;
        for (const [path, fact] of Object.entries(facts)) {
          if (fact !== null && typeof fact === 'object')
            expect((fact as { pid?: unknown }).pid, `${path} reached the host process`).not.toBe(process.pid);
        }
      });
    });

    hostileCase('prototype-pollution', 'polluting prototypes inside the sandbox does not reach the host', async () => {
      const outcome = await execute(POLLUTION_SNIPPET);
      expectOutcome('prototype-pollution', outcome);
      expect(gateway.calls.length).toBeGreaterThan(0);
      for (const call of gateway.calls) {
        expect(call.pollution, 'host prototypes polluted during the call').toEqual([]);
        expect(call.problems, 'arguments that are not plain data').toEqual([]);
        expect(Object.getPrototypeOf(call.args)).toBe(Object.prototype);
        expect((call.args as Record<string, unknown>).isAdmin).toBeUndefined();
      }
      const host = {} as Record<string, unknown>;
      expect(host.polluted).toBeUndefined();
      expect(host.isAdmin).toBeUndefined();
      expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
    });

    hostileCase('hostile-values', 'getters, toJSON, proxies and cycles never cross as live objects', async () => {
      const outcome = await execute(HOSTILE_VALUES_SNIPPET);
      expectOutcome('hostile-values', outcome);
      for (const call of gateway.calls) {
        expect(call.problems, `arguments of ${call.id} that are not plain data`).toEqual([]);
        expect(typeof call.id).toBe('string');
      }
      expect(JSON.stringify(gateway.calls.map((call) => call.args))).not.toContain(String(process.pid));
    });

    hostileCase('intrinsics-tampering', 'tampering with intrinsics and tools stays inside the sandbox', async () => {
      const intrinsics = (): unknown[] => [
        Object.getOwnPropertyDescriptor(JSON, 'parse')?.value,
        Object.getOwnPropertyDescriptor(Promise.prototype, 'then')?.value,
        Object.getOwnPropertyDescriptor(Function.prototype, 'constructor')?.value,
        Object.getOwnPropertyDescriptor(Array.prototype, 'map')?.value,
        Object.getOwnPropertyDescriptor(Reflect, 'apply')?.value,
        Object.getOwnPropertyDescriptor(Map.prototype, 'get')?.value,
        globalThis.Error,
      ];
      const before = intrinsics();
      const outcome = await execute(TAMPERING_SNIPPET);
      expectOutcome('intrinsics-tampering', outcome);
      const after = intrinsics();
      after.forEach((value, i) => expect(value, `host intrinsic #${i} was replaced`).toBe(before[i]));
      expect(({} as Record<string, unknown>).hijacked).toBeUndefined();
      for (const call of gateway.calls) expect(call.pollution).toEqual([]);
    });
  });
}
