/**
 * The facade's doc lookups (`exec.getToolDoc`, a snippet's `tools.describeTool` and
 * `tools.listToolExamples`) over its MCP servers: a tool of a failed server is not "not found".
 *
 * @internal
 * @module
 */
import { hasErrorCode } from '../model/index.js';
import type { DetailLevel, DocEntry, DocStore, ToolDoc, ToolExample } from '../discovery/index.js';
import type { ServerPool } from './servers.js';

/**
 * `docs` as the facade answers from it: a lookup that finds no tool whose ID names a failed server
 * of `pool` (its tools are absent from the index) rejects with that server's `SERVER_UNAVAILABLE`
 * ({@link ServerPool.unavailableFor}: the server named, its connect error as `cause`), as a call of
 * the tool does, instead of `TOOL_NOT_FOUND`. Everything else goes to `docs` as it is; without
 * servers, `docs` itself.
 */
export function serverAwareDocs(docs: DocStore, pool: ServerPool | undefined): DocStore {
  if (pool === undefined) return docs;
  const failure = (id: string, err: unknown): unknown =>
    (hasErrorCode(err, 'TOOL_NOT_FOUND') && typeof id === 'string' ? pool.unavailableFor(id) : undefined) ?? err;
  return {
    registerDoc: (id: string, entry: DocEntry): void => docs.registerDoc(id, entry),
    registerExamples: (id: string, examples: readonly ToolExample[]): void => docs.registerExamples(id, examples),
    describeTool(id: string, level: DetailLevel): ToolDoc {
      try {
        return docs.describeTool(id, level);
      } catch (err) {
        throw failure(id, err);
      }
    },
    listExamples(id: string, max: number): ToolExample[] {
      try {
        return docs.listExamples(id, max);
      } catch (err) {
        throw failure(id, err);
      }
    },
  };
}
