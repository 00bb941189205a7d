/**
 * The searchable fields of one tool, as the built-in engine indexes them: what each field holds
 * and how much a match in it counts.
 */
import type { Tool } from '../model/index.js';
import { category, metaSummary, modes, securitySummary } from './tool-facts.js';

/** The searchable fields of one tool. */
export interface EngineDoc {
  id: string;
  name: string;
  namespace: string;
  /** The MCP `title`, and `annotations.title` when it differs; space-joined. */
  title: string;
  description: string;
  /** `_meta.summary` when it adds something to the description, else `''`. */
  summary: string;
  /** Normalized tags, space-joined. */
  tags: string;
  category: string;
  /** The security scheme names, input modes and output modes the summary shows, space-joined. */
  facts: string;
}

/** One hit of the engine: a tool ID and its score. */
export interface EngineHit {
  id: string;
  score: number;
}

/** Every field, in the order MiniSearch indexes them. */
export const FIELDS: readonly (keyof EngineDoc)[] = [
  'id',
  'name',
  'namespace',
  'title',
  'tags',
  'category',
  'summary',
  'description',
  'facts',
];

/** Field boosts: a match in the name counts most, then the ID and title, the namespace and tags. */
export const FIELD_BOOSTS: Readonly<Record<keyof EngineDoc, number>> = Object.freeze({
  name: 6,
  id: 4,
  title: 4,
  namespace: 3,
  tags: 3,
  category: 2,
  summary: 1.2,
  description: 1,
  facts: 1,
});

/** Fields of running prose, whose stop words are not indexed. */
export const PROSE_FIELDS: ReadonlySet<string> = new Set(['description', 'summary']);

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function titleOf(tool: Tool): string {
  const title = text(tool.title);
  const annotations: unknown = tool.annotations;
  const annotated = annotations !== null && typeof annotations === 'object' ? text((annotations as { title?: unknown }).title) : '';
  return annotated === '' || annotated === title ? title : `${title} ${annotated}`;
}

/** The engine's document for a registered tool (`tags` already normalized). */
export function engineDoc(id: string, tool: Tool, tags: readonly string[]): EngineDoc {
  const description = text(tool.description);
  const summary = metaSummary(tool);
  const facts = [securitySummary(tool).replaceAll(',', ' '), ...modes(tool, 'inputModes'), ...modes(tool, 'outputModes')];
  return {
    id,
    name: tool.name,
    namespace: tool.namespace ?? '',
    title: titleOf(tool),
    description,
    summary: summary !== undefined && summary !== description ? summary : '',
    tags: tags.join(' '),
    category: category(tool) ?? '',
    facts: facts.filter((fact) => fact !== '').join(' '),
  };
}
