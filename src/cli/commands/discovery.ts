/**
 * `toolexec tools`, `toolexec search` and `toolexec describe`: what the configured servers and
 * tool modules offer.
 */
import { Option, type Command } from 'commander';
import type { DetailLevel, ToolDoc, ToolSummary } from '../../discovery/index.js';
import { DEFAULT_SEARCH_LIMIT } from '../../exec/index.js';
import { parsePositiveInt, parseToolIdArgument } from '../arguments.js';
import { cliErrors } from '../errors.js';
import { writeJson, writeLine, type CliOutput } from '../io.js';
import { pretty, table } from '../render.js';
import { withSession, type GlobalOptions, type Session } from '../session.js';
import { globalsOf, type CommandContext } from './context.js';

function writeSummaries(stream: CliOutput, summaries: readonly ToolSummary[], ranked: boolean): void {
  const rows = summaries.map((summary, i) => [...(ranked ? [`${i + 1}.`] : []), summary.id, summary.summary ?? '']);
  const header = [...(ranked ? ['#'] : []), 'ID', 'SUMMARY'];
  for (const line of table([header, ...rows])) writeLine(stream, line);
}

function writeDoc(stream: CliOutput, id: string, doc: ToolDoc): void {
  writeLine(stream, id);
  if (doc.summary !== '') writeLine(stream, `  ${doc.summary}`);
  const description = doc.tool?.description;
  if (description !== undefined && description !== '' && description !== doc.summary) writeLine(stream, `\n${description}`);
  const facts: [string, unknown][] = [
    ['annotations', doc.annotations],
    ['input modes', doc.inputModes],
    ['output modes', doc.outputModes],
    ['security', doc.securitySummary],
    ['arguments', doc.schemaInfo],
    ['input schema', doc.tool?.inputSchema],
    ['output schema', doc.tool?.outputSchema],
    ['notes', doc.notes],
    ['examples', doc.examples?.length === 0 ? undefined : doc.examples],
    ['references', doc.externalRefs?.length === 0 ? undefined : doc.externalRefs],
  ];
  for (const [label, value] of facts) {
    if (value === undefined) continue;
    writeLine(stream, `\n${label}:`);
    const text = typeof value === 'string' ? value : pretty(value, stream);
    writeLine(stream, text.replace(/^/gm, '  '));
  }
}

/** Runs `body` on a session of `command` whose servers have connected (or failed, with a warning). */
async function withConnected(
  io: CommandContext['io'],
  command: Command,
  body: (session: Session, options: GlobalOptions) => Promise<void>,
): Promise<void> {
  const options = globalsOf(command);
  await withSession(io, options, async (session) => {
    await session.connect();
    await body(session, options);
  });
}

/** Registers `tools`, `search` and `describe`. */
export function registerDiscovery(program: Command, context: CommandContext): void {
  const { io } = context;

  program
    .command('tools')
    .description('list every tool of the configured servers and tool modules, by ID')
    .option('-n, --namespace <namespace>', 'only the tools of this namespace (an MCP server name, or a tool module namespace)')
    .action((commandOptions: { namespace?: string }, command: Command) =>
      withConnected(io, command, async (session, options) => {
        const namespace = commandOptions.namespace;
        if (namespace !== undefined) {
          const namespaces = await session.exec.listNamespaces();
          if (!namespaces.includes(namespace)) {
            const known = namespaces.filter((name) => name !== '');
            throw cliErrors('TOOL_NOT_FOUND', `no tools in namespace "${namespace}" (namespaces: ${known.join(', ') || 'none'})`, {
              details: { namespace, namespaces: known },
            });
          }
        }
        const all = await session.exec.searchTools('', Infinity);
        const tools = namespace === undefined ? all : all.filter((summary) => (summary.namespace ?? '') === namespace);
        if (options.json) writeJson(io.stdout, tools);
        else if (tools.length === 0) writeLine(io.stderr, 'toolexec: no tools (configure MCP servers in toolexec.json or pass --tools)');
        else writeSummaries(io.stdout, tools, false);
      }),
    );

  program
    .command('search')
    .description('full-text search over the tools (name, ID, namespace, tags, description)')
    .argument('<query>', 'words to look for')
    .option('-l, --limit <n>', 'most results', parsePositiveInt, DEFAULT_SEARCH_LIMIT)
    .action((query: string, commandOptions: { limit: number }, command: Command) =>
      withConnected(io, command, async (session, options) => {
        const found = await session.exec.searchTools(query, commandOptions.limit);
        if (options.json) writeJson(io.stdout, found);
        else if (found.length === 0) writeLine(io.stderr, `toolexec: no tools match "${query}"`);
        else writeSummaries(io.stdout, found, true);
      }),
    );

  program
    .command('describe')
    .description("a tool's documentation: summary, or its schemas (schema), or everything (full)")
    .argument('<id>', 'the tool ID (namespace:name[:version])', parseToolIdArgument)
    .addOption(new Option('--level <level>', 'how much to show').choices(['summary', 'schema', 'full']).default('summary'))
    .action((id: string, commandOptions: { level: DetailLevel }, command: Command) =>
      withConnected(io, command, async (session, options) => {
        const doc = await session.exec.getToolDoc(id, commandOptions.level);
        if (options.json) writeJson(io.stdout, doc);
        else writeDoc(io.stdout, id, doc);
      }),
    );
}
