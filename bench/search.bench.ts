/**
 * Discovery search benchmark: indexing 10,000 generated tools and querying them.
 *
 * Measured against the irreducible work in the same run: raw MiniSearch indexing the same
 * documents (`addAll`) and answering the same queries with the same options, plus a full
 * substring scan (Go's lexical searcher) as a point of comparison.
 *
 * Run: `node --import tsx bench/search.bench.ts [--json] [--tools N]`
 */
import MiniSearch from 'minisearch';
import { Bench } from 'tinybench';
import { createToolIndex, type InMemoryToolIndex } from '../src/discovery/index.js';
import type { Tool, ToolBackend } from '../src/model/index.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const toolsFlag = args.indexOf('--tools');
const TOOL_COUNT = toolsFlag >= 0 ? Number(args[toolsFlag + 1]) : 10_000;
const INDEX_RUNS = 5;

// ---------------------------------------------------------------- data

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMESPACES = [
  'github',
  'gitlab',
  'bitbucket',
  'slack',
  'discord',
  'teams',
  'jira',
  'linear',
  'asana',
  'trello',
  'notion',
  'confluence',
  'gdrive',
  'dropbox',
  'onedrive',
  'fs',
  'sqlite',
  'postgres',
  'mysql',
  'mongodb',
  'redis',
  'elastic',
  'k8s',
  'docker',
  'helm',
  'terraform',
  'aws-s3',
  'aws-ec2',
  'aws-lambda',
  'gcp-storage',
  'azure-blob',
  'stripe',
  'paypal',
  'shopify',
  'salesforce',
  'hubspot',
  'zendesk',
  'intercom',
  'twilio',
  'sendgrid',
  'gmail',
  'outlook',
  'calendar',
  'zoom',
  'figma',
  'sentry',
  'datadog',
  'pagerduty',
  'grafana',
  'prometheus',
  'openai',
  'anthropic',
  'huggingface',
  'weather',
  'maps',
  'search',
  'browser',
  'pdf',
  'image',
  'audio',
];
const VERBS = [
  'list',
  'get',
  'create',
  'update',
  'delete',
  'search',
  'read',
  'write',
  'sync',
  'export',
  'import',
  'archive',
  'restore',
  'move',
  'copy',
  'rename',
  'share',
  'watch',
  'query',
  'summarize',
];
const NOUNS = [
  'issue',
  'pull_request',
  'commit',
  'branch',
  'file',
  'folder',
  'bucket',
  'message',
  'channel',
  'user',
  'team',
  'project',
  'ticket',
  'comment',
  'label',
  'release',
  'deployment',
  'pod',
  'container',
  'secret',
  'invoice',
  'customer',
  'order',
  'payment',
  'event',
  'alert',
  'dashboard',
  'metric',
  'log',
  'document',
];
const ADJECTIVES = ['recent', 'archived', 'shared', 'private', 'public', 'pending', 'failed', 'active', 'large', 'nested'];
const TAGS = [
  'vcs',
  'chat',
  'storage',
  'database',
  'cloud',
  'billing',
  'crm',
  'email',
  'monitoring',
  'ai',
  'files',
  'devops',
  'security',
  'analytics',
  'productivity',
  'media',
  'read-only',
  'write',
  'admin',
  'beta',
];

const SYNONYMS: Record<string, string[]> = {
  list: ['Lists', 'Enumerates', 'Returns a page of'],
  get: ['Fetches', 'Retrieves', 'Looks up'],
  create: ['Creates', 'Opens', 'Adds'],
  update: ['Updates', 'Edits', 'Changes fields of'],
  delete: ['Deletes', 'Removes', 'Permanently erases'],
  search: ['Searches', 'Finds', 'Runs a full-text query over'],
  read: ['Reads', 'Loads', 'Downloads'],
  write: ['Writes', 'Uploads', 'Saves'],
  sync: ['Synchronizes', 'Mirrors', 'Reconciles'],
  export: ['Exports', 'Dumps', 'Serializes'],
  import: ['Imports', 'Ingests', 'Bulk-loads'],
  archive: ['Archives', 'Hides', 'Moves to cold storage'],
  restore: ['Restores', 'Recovers', 'Undeletes'],
  move: ['Moves', 'Relocates', 'Transfers'],
  copy: ['Copies', 'Duplicates', 'Clones'],
  rename: ['Renames', 'Relabels', 'Changes the title of'],
  share: ['Shares', 'Grants access to', 'Publishes'],
  watch: ['Watches', 'Subscribes to changes on', 'Follows'],
  query: ['Queries', 'Aggregates', 'Computes statistics over'],
  summarize: ['Summarizes', 'Condenses', 'Produces a digest of'],
};
const SECOND_SENTENCES = [
  'Supports cursor-based pagination.',
  'Requires the {ns} API token with write scope.',
  'Results are sorted by creation time, newest first.',
  'Fails if the {noun} does not exist.',
  'Pass dry_run to preview the change without applying it.',
  'Rate limited to 60 calls per minute.',
  'Returns identifiers only; call the matching get tool for details.',
  'Accepts filters on owner, status and date range.',
  'Idempotent: repeating the call has no further effect.',
  'Large payloads are streamed in chunks.',
  'Only administrators may call this on shared workspaces.',
  'Includes attachments and inline comments when asked.',
  'Timestamps are ISO 8601 in UTC.',
  '',
  '',
];

function words(noun: string): string {
  return noun.replace(/_/g, ' ');
}

function generateTools(count: number): Tool[] {
  const random = prng(42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const tools: Tool[] = [];
  const seen = new Set<string>();
  while (tools.length < count) {
    const namespace = pick(NAMESPACES);
    const verb = pick(VERBS);
    const noun = pick(NOUNS);
    let name = `${verb}_${noun}`;
    if (seen.has(`${namespace}:${name}`)) name = `${verb}_${pick(ADJECTIVES)}_${noun}`;
    if (seen.has(`${namespace}:${name}`)) name = `${name}_v${tools.length}`;
    seen.add(`${namespace}:${name}`);
    const adjective = random() < 0.5 ? `${pick(ADJECTIVES)} ` : '';
    const second = pick(SECOND_SENTENCES).replace('{ns}', namespace).replace('{noun}', words(noun));
    const description = `${pick(SYNONYMS[verb] ?? [verb])} ${adjective}${words(noun)}s in ${namespace}. ${second}`.trim();
    const tool: Tool = {
      name,
      namespace,
      description,
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, limit: { type: 'integer', default: 20 } },
        required: ['id'],
      },
      tags: [pick(TAGS), pick(TAGS), pick(TAGS)],
    };
    if (random() < 0.2) tool._meta = { category: pick(TAGS), summary: `${verb} ${words(noun)} (${namespace})` };
    tools.push(tool);
  }
  return tools;
}

const tools = generateTools(TOOL_COUNT);
const backends: ToolBackend[] = tools.map((tool) => ({ kind: 'mcp', mcp: { serverName: tool.namespace ?? 'default' } }));

const QUERIES = [
  // single words
  'issue',
  'commit',
  'bucket',
  'invoice',
  'deployment',
  'secret',
  'dashboard',
  'channel',
  'payment',
  'archived',
  'storage',
  'monitoring',
  'github',
  'postgres',
  'slack',
  // two words
  'create issue',
  'list files',
  'delete bucket',
  'search messages',
  'export invoices',
  'restore archived',
  'pull request',
  'share document',
  'query metric',
  'watch alerts',
  // exact names and IDs
  'list_issue',
  'create_pull_request',
  'read_file',
  'sync_customer',
  'github:list_issue',
  'slack:search_message',
  'get_user',
  'delete_pod',
  'summarize_document',
  'update_ticket',
  // prefixes
  'depl',
  'inv',
  'cont',
  'git',
  'dash',
  'pay',
  'sec',
  'mess',
  'fil',
  'arch',
  // no match (and a typo handled by the fuzzy fallback)
  'kubernetesx',
  'zzzz',
  'qwertyuiop',
  'invioce',
  'xylophone',
];

// Long natural-language queries, as an agent writes them (25 words and more): each word is a term
// to score, so these bound what one search can cost.
const LONG_QUERIES = [
  'I need to find a tool that can create a new invoice for a customer and send it by email to the account owner with an attachment',
  'please list all of the recent pull requests and commits in the github repository then summarize the failed deployments and alerts for my team',
  'search the shared documents and files in the storage bucket for anything about payments orders or customers that was archived last week by an admin',
];

// ---------------------------------------------------------------- helpers

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function percentile(samples: ArrayLike<number> | undefined, p: number): number {
  if (samples === undefined || samples.length === 0) return Number.NaN;
  const sorted = Array.from(samples).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function buildIndex(): InMemoryToolIndex {
  const index = createToolIndex();
  for (let i = 0; i < tools.length; i++) index.registerTool(tools[i] as Tool, backends[i] as ToolBackend);
  return index;
}

interface RawDoc {
  id: string;
  name: string;
  namespace: string;
  description: string;
  tags: string;
}

function rawDocs(): RawDoc[] {
  return tools.map((tool) => ({
    id: `${tool.namespace}:${tool.name}`,
    name: tool.name,
    namespace: tool.namespace ?? '',
    description: tool.description ?? '',
    tags: (tool.tags ?? []).join(' '),
  }));
}

function buildRawMiniSearch(docs: RawDoc[]): MiniSearch<RawDoc> {
  const mini = new MiniSearch<RawDoc>({ fields: ['id', 'name', 'namespace', 'description', 'tags'], autoVacuum: false });
  mini.addAll(docs);
  return mini;
}

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

// ---------------------------------------------------------------- indexing

const docs = rawDocs();
const indexTimes: number[] = [];
const rawTimes: number[] = [];
let index = buildIndex(); // warm-up run (JIT), not counted
buildRawMiniSearch(docs);
for (let run = 0; run < INDEX_RUNS; run++) {
  indexTimes.push(time(() => (index = buildIndex())));
  rawTimes.push(time(() => buildRawMiniSearch(docs)));
}
const raw = buildRawMiniSearch(docs);

// ---------------------------------------------------------------- queries

const firstId = `${tools[0]?.namespace}:${tools[0]?.name}`;
let cursor = 0;
const nextQuery = (): string => QUERIES[cursor++ % QUERIES.length] as string;
const substringScan = (query: string): number => {
  const needle = query.toLowerCase();
  let hits = 0;
  for (const doc of docs) if (`${doc.name} ${doc.namespace} ${doc.description} ${doc.tags}`.toLowerCase().includes(needle)) hits++;
  return hits;
};

const bench = new Bench({ time: 1500, warmupTime: 200, retainSamples: true });
bench
  .add('index.search (mix, limit 10)', () => {
    index.search(nextQuery(), 10);
  })
  .add('raw MiniSearch.search (mix, prefix)', () => {
    raw.search(nextQuery(), { prefix: (term) => term.length >= 2, boost: { name: 6, id: 4, namespace: 3, tags: 3 } });
  })
  .add('index.search (long natural-language query, limit 10)', () => {
    index.search(LONG_QUERIES[cursor++ % LONG_QUERIES.length] as string, 10);
  })
  .add('index.searchPage (first page of 20)', () => {
    index.searchPage(nextQuery(), 20);
  })
  .add('index.searchPage (walk all pages of "issue")', () => {
    let page = index.searchPage('issue', 50);
    while (page.nextCursor !== undefined) page = index.searchPage('issue', 50, page.nextCursor);
  })
  .add('substring scan over all docs (Go lexical)', () => {
    substringScan(nextQuery());
  })
  .add('index.getTool', () => {
    index.getTool(firstId);
  });

await bench.run();

// A per-query latency profile outside tinybench's rotation: every query, 50 times each.
const perQuery: { query: string; p50Ms: number; hits: number }[] = [...QUERIES, ...LONG_QUERIES].map((query) => {
  const samples: number[] = [];
  for (let i = 0; i < 50; i++) samples.push(time(() => index.search(query, 10)));
  return { query, p50Ms: median(samples), hits: index.search(query, 10_000).length };
});

const rows = bench.tasks.map((task) => {
  const result = task.result;
  if (result.state !== 'completed') return { name: task.name, state: result.state };
  return {
    name: task.name,
    p50Ms: result.latency.p50,
    p95Ms: percentile(result.latency.samples, 95),
    p99Ms: result.latency.p99,
    meanMs: result.latency.mean,
    opsPerSec: Math.round(1000 / result.latency.mean),
  };
});

const figures = {
  tools: TOOL_COUNT,
  queries: QUERIES.length,
  indexing: {
    medianMs: median(indexTimes),
    runsMs: indexTimes.map((t) => Math.round(t)),
    rawMiniSearchAddAllMedianMs: median(rawTimes),
    ratioToRawMiniSearch: median(indexTimes) / median(rawTimes),
  },
  tasks: rows,
  slowestQueries: [...perQuery].sort((a, b) => b.p50Ms - a.p50Ms).slice(0, 5),
  targets: {
    indexingUnder500Ms: median(indexTimes) <= 500,
    queryP50Under1Ms: ((rows[0] as { p50Ms?: number }).p50Ms ?? Infinity) <= 1,
  },
};

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const fmt = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(3));
  console.log(`\nIndexing ${TOOL_COUNT} tools (median of ${INDEX_RUNS} runs)`);
  console.table({
    'createToolIndex + registerTool x N': { ms: Math.round(figures.indexing.medianMs) },
    'raw MiniSearch.addAll (same docs)': { ms: Math.round(figures.indexing.rawMiniSearchAddAllMedianMs) },
    ratio: { ms: Number(figures.indexing.ratioToRawMiniSearch.toFixed(2)) },
  });
  console.log(
    `Queries: a rotating mix of ${QUERIES.length} (single words, two words, exact names/IDs, prefixes, no match); ${LONG_QUERIES.length} long queries of 25+ words`,
  );
  console.table(
    Object.fromEntries(
      rows.map((row) => [
        row.name,
        'p50Ms' in row
          ? {
              'p50 ms': fmt(row.p50Ms),
              'p95 ms': fmt(row.p95Ms),
              'p99 ms': fmt(row.p99Ms),
              'mean ms': fmt(row.meanMs),
              'ops/s': row.opsPerSec,
            }
          : { state: row.state },
      ]),
    ),
  );
  console.log('Slowest queries (p50 of 50 calls, limit 10):');
  console.table(Object.fromEntries(figures.slowestQueries.map((q) => [q.query.slice(0, 60), { 'p50 ms': fmt(q.p50Ms), hits: q.hits }])));
  console.log('Targets:', figures.targets);
}
