/**
 * What the hostile-code suite watches on the host: handles, threads and child processes before and
 * after a case, event-loop lag and RSS during it, and a gateway double that records what reached
 * the host.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { ToolexecError } from '../model/index.js';
import type { DetailLevel, ToolDoc, ToolExample, ToolSummary } from '../discovery/index.js';
import type { ChainResult, ChainStep, RunResult } from '../run/index.js';
import type { ToolGateway } from '../runtime/index.js';

/** Handles, threads and child processes of this process. */
interface ResourceSnapshot {
  handles: Record<string, number>;
  threads?: number;
  children?: number;
}

function threadCount(): number | undefined {
  try {
    const match = /^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

function childCount(): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let count = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') count += 1;
    } catch {
      // the process is gone
    }
  }
  return count;
}

export function snapshot(): ResourceSnapshot {
  const handles: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) handles[type] = (handles[type] ?? 0) + 1;
  const threads = threadCount();
  const children = childCount();
  return { handles, ...(threads === undefined ? {} : { threads }), ...(children === undefined ? {} : { children }) };
}

function excess(now: ResourceSnapshot, base: ResourceSnapshot): string[] {
  const out: string[] = [];
  for (const [type, count] of Object.entries(now.handles)) {
    const before = base.handles[type] ?? 0;
    if (count > before) out.push(`${type}: ${count} > ${before}`);
  }
  if (now.threads !== undefined && base.threads !== undefined && now.threads > base.threads)
    out.push(`threads: ${now.threads} > ${base.threads}`);
  if (now.children !== undefined && base.children !== undefined && now.children > base.children) {
    out.push(`child processes: ${now.children} > ${base.children}`);
  }
  return out;
}

export async function settled(base: ResourceSnapshot, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = excess(snapshot(), base);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Samples event-loop lag and RSS while a run is in progress. */
export function startHostProbe(): { stop(): { maxLagMs: number; rssGrowthBytes: number; ticks: number } } {
  const intervalMs = 20;
  const rssBefore = process.memoryUsage.rss();
  let peakRss = rssBefore;
  let maxLagMs = 0;
  let ticks = 0;
  let expected = performance.now() + intervalMs;
  const timer = setInterval(() => {
    const now = performance.now();
    maxLagMs = Math.max(maxLagMs, now - expected);
    expected = now + intervalMs;
    ticks += 1;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const now = performance.now();
      maxLagMs = Math.max(maxLagMs, now - expected);
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      return { maxLagMs, rssGrowthBytes: peakRss - rssBefore, ticks };
    },
  };
}

// ---- the probe gateway -------------------------------------------------------------------------------

/** A value that crossed into the host is plain JSON data: no accessors, functions or foreign prototypes. */
function plainDataProblems(value: unknown, path = 'args', seen = new Set<unknown>()): string[] {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return [];
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path} is not a finite number`];
  if (typeof value !== 'object') return [`${path} is a ${typeof value}`];
  if (seen.has(value)) return [`${path} is a cycle`];
  seen.add(value);
  const proto: unknown = Object.getPrototypeOf(value);
  const problems: string[] = [];
  if (Array.isArray(value) ? proto !== Array.prototype : proto !== Object.prototype) problems.push(`${path} has a foreign prototype`);
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
    if (typeof key !== 'string') continue;
    if (!('value' in descriptor)) {
      problems.push(`${path}.${key} is an accessor`);
      continue;
    }
    if (Array.isArray(value) && key === 'length') continue;
    problems.push(...plainDataProblems(descriptor.value, `${path}.${key}`, seen));
  }
  return problems;
}

/** A gateway double whose one tool, `hostile:probe`, records what reached the host. */
export class ProbeGateway implements ToolGateway {
  readonly calls: { id: string; args: unknown; problems: string[]; pollution: string[] }[] = [];

  async searchTools(_query: string, _limit: number): Promise<ToolSummary[]> {
    return [];
  }

  async listNamespaces(): Promise<string[]> {
    return ['hostile'];
  }

  async describeTool(id: string, _level: DetailLevel): Promise<ToolDoc> {
    throw new ToolexecError('TOOL_NOT_FOUND', `tool not found: ${id}`);
  }

  async listToolExamples(_id: string, _max: number): Promise<ToolExample[]> {
    return [];
  }

  async runTool(id: string, args?: Record<string, unknown>): Promise<RunResult> {
    const pollution: string[] = [];
    const probe = {} as Record<string, unknown>;
    for (const key of ['polluted', 'isAdmin', 'hijacked']) {
      if (probe[key] !== undefined || ([] as unknown as Record<string, unknown>)[key] !== undefined) pollution.push(key);
    }
    this.calls.push({ id, args, problems: plainDataProblems(args ?? {}), pollution });
    if (id !== 'hostile:probe') throw new ToolexecError('TOOL_NOT_FOUND', `tool not found: ${id}`);
    return {
      tool: { name: 'probe', namespace: 'hostile', inputSchema: { type: 'object' } },
      backend: { kind: 'local', local: { name: 'probe' } },
      structured: { ok: true, seen: this.calls.length },
    };
  }

  async runChain(steps: readonly ChainStep[]): Promise<ChainResult> {
    const results = [];
    let last: RunResult | undefined;
    for (const step of steps) {
      last = await this.runTool(step.toolId, step.args);
      results.push({ toolId: step.toolId, backend: last.backend, result: last });
    }
    if (last === undefined) throw new ToolexecError('EXECUTION', 'empty chain');
    return { result: last, steps: results };
  }
}
