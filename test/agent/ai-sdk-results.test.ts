/**
 * `aiSdkTools` with a `provider` answers as `agentTools` does for that format: the same parts, each
 * medium the provider cannot take a text note, no empty text for Anthropic; and it refuses two
 * tools with one name, as `agentTools` does (and `createMcpServer` does not list them).
 */
import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTools, aiSdkTools, createMcpServer, encodeToolName, type ProviderFormat } from '../../src/agent/index.js';
import { createExec, type DefaultExec, type ExecOptions } from '../../src/exec/index.js';
import { hasErrorCode } from '../../src/model/index.js';
import { scriptedToolStep } from './scripted-step.js';

const PNG = 'iVBORw0KGgo=';

/** What the upstream MCP server's tools answer, by tool name. */
const RESULTS: Record<string, CallToolResult> = {
  svg: { content: [{ type: 'image', data: 'PHN2Zz48L3N2Zz4=', mimeType: 'image/svg+xml' }] },
  bmp_and_text: {
    content: [
      { type: 'text', text: 'the chart' },
      { type: 'image', data: 'Qk0=', mimeType: 'image/bmp' },
    ],
  },
  blank_and_png: {
    content: [
      { type: 'text', text: '' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'text', text: '  \n' },
    ],
  },
  pdf: { content: [{ type: 'resource', resource: { uri: 'file:///r.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' } }] },
  audio: { content: [{ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }] },
  link: { content: [{ type: 'resource_link', uri: 'file:///x.txt', name: 'x.txt', mimeType: 'text/plain' }] },
};

function upstream(): NonNullable<ExecOptions['mcpServers']>[string] {
  return {
    transport: 'custom',
    createTransport: async () => {
      const server = new McpServer({ name: 'up', version: '1.0.0' });
      for (const [name, result] of Object.entries(RESULTS)) server.registerTool(name, { description: name, inputSchema: {} }, () => result);
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return client;
    },
  };
}

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

async function execWithResults(): Promise<DefaultExec> {
  const exec = createExec({
    mcpServers: { up: upstream() },
    tools: [{ tool: { name: 'blank', namespace: 'up', inputSchema: { type: 'object' } }, handler: () => ' \n ' }],
  });
  open.push(exec);
  await exec.connect();
  return exec;
}

/** The output the model is sent for one call of `name` (a scripted model: the call, then an answer). */
async function modelSees(tools: Awaited<ReturnType<typeof aiSdkTools>>, name: string): Promise<LanguageModelV4ToolResultOutput> {
  const { sent } = await scriptedToolStep(tools, name);
  // the AI SDK adds `filename: undefined` and the like: compared as JSON
  return JSON.parse(JSON.stringify(sent)) as LanguageModelV4ToolResultOutput;
}

type Expected = LanguageModelV4ToolResultOutput;
type ContentPart = Extract<Expected, { type: 'content' }>['value'][number];

/** A medium as the AI SDK's `content` output carries it. */
function file(mediaType: string, data: string): ContentPart {
  return { type: 'file', mediaType, data: { type: 'data', data } };
}

/** `agentTools`' answer for the same call, as the AI SDK output carrying the same parts. */
function asAiSdkOutput(format: ProviderFormat, result: unknown): Expected {
  const text = (value: string): Expected => ({ type: 'text', value });
  switch (format) {
    case 'openai-chat': {
      const message = result as ChatCompletionToolMessageParam;
      return text(message.content as string);
    }
    case 'openai-responses': {
      const item = result as ResponseInputItem.FunctionCallOutput;
      if (typeof item.output === 'string') return text(item.output);
      return {
        type: 'content',
        value: item.output.map((part) => {
          if (part.type === 'input_text') return { type: 'text', text: part.text };
          const url = part.type === 'input_image' ? (part.image_url as string) : (part.file_data as string);
          const [, mediaType = '', data = ''] = /^data:([^;]+);base64,(.*)$/u.exec(url) ?? [];
          return file(mediaType, data);
        }),
      };
    }
    case 'anthropic': {
      const blocks = (result as ToolResultBlockParam).content as Exclude<ToolResultBlockParam['content'], string | undefined>;
      if (blocks.every((block) => block.type === 'text')) return text(blocks.map((block) => block.text).join('\n'));
      return {
        type: 'content',
        value: blocks.map((block) => {
          if (block.type === 'text') return { type: 'text', text: block.text };
          if ((block.type === 'image' || block.type === 'document') && block.source.type === 'base64') {
            return file(block.source.media_type, block.source.data);
          }
          throw new Error(`unexpected block ${block.type}`);
        }),
      };
    }
    default:
      throw new Error(`no mapping for ${format}`);
  }
}

describe('aiSdkTools with a provider: the parts agentTools sends that format', () => {
  it.each(['anthropic', 'openai-chat', 'openai-responses'] as const)('%s', async (provider) => {
    const exec = await execWithResults();
    const tools = await aiSdkTools(exec, { provider });
    const agent = await agentTools(exec, { format: provider });
    for (const name of [...Object.keys(RESULTS), 'blank'].map((tool) => encodeToolName(`up:${tool}`))) {
      const seen = await modelSees(tools, name);
      expect(seen, name).toEqual(asAiSdkOutput(provider, await agent.call(name, {}, { callId: 'c1' })));
      // nothing the provider refuses: only the media it takes, no empty text for Anthropic
      const parts = seen.type === 'content' ? seen.value : [];
      for (const part of parts) {
        if (part.type === 'file') {
          expect(provider, `${name} ${part.mediaType}`).not.toBe('openai-chat');
          expect(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf'], name).toContain(part.mediaType);
        }
        if (provider === 'anthropic' && part.type === 'text') expect(part.text.trim(), name).not.toBe('');
      }
      if (provider === 'anthropic' && seen.type === 'text') expect(seen.value.trim(), name).not.toBe('');
    }
  });

  it('anthropic: an SVG becomes the note agentTools sends, blank text is left out, a blank string is "(no output)"', async () => {
    const tools = await aiSdkTools(await execWithResults(), { provider: 'anthropic' });
    expect(await modelSees(tools, 'up--svg')).toEqual({
      type: 'text',
      value: '[image (image/svg+xml, 12 bytes) not shown: Anthropic takes JPEG, PNG, GIF and WebP images and PDF documents only]',
    });
    expect(await modelSees(tools, 'up--blank_and_png')).toEqual({ type: 'content', value: [file('image/png', PNG)] });
    expect(await modelSees(tools, 'up--blank')).toEqual({ type: 'text', value: '(no output)' });
  });

  it('without a provider, and for Gemini, every medium goes as a file, as Gemini takes it', async () => {
    const exec = await execWithResults();
    for (const options of [{}, { provider: 'gemini' as const }]) {
      const tools = await aiSdkTools(exec, options);
      expect(await modelSees(tools, 'up--svg')).toEqual({ type: 'content', value: [file('image/svg+xml', 'PHN2Zz48L3N2Zz4=')] });
      expect(await modelSees(tools, 'up--audio')).toEqual({ type: 'content', value: [file('audio/wav', 'UklGRg==')] });
      // a resource link reads as agentTools writes it
      expect(await modelSees(tools, 'up--link')).toEqual({ type: 'text', value: '[resource file:///x.txt (text/plain): x.txt]' });
    }
  });
});

/**
 * Two tool IDs whose shortened names collide: the same 52-character prefix and the same 50 bits of
 * SHA-256. Found with Brent's cycle-finding over the last 10 characters (about 10^8 hashes).
 */
const COLLIDING_IDS = [
  'reports:quarterly_revenue_by_region_and_product_line_for_y6f72cpzwq',
  'reports:quarterly_revenue_by_region_and_product_line_for_atnxxk7uz7',
] as const;

describe('two tools with one provider name', () => {
  function collidingExec(): DefaultExec {
    const exec = createExec({
      tools: COLLIDING_IDS.map((id) => {
        const [namespace, name] = id.split(':') as [string, string];
        return { tool: { namespace, name, inputSchema: { type: 'object' } }, handler: () => id };
      }),
    });
    open.push(exec);
    return exec;
  }

  it('the two IDs really share one name', () => {
    const [a, b] = COLLIDING_IDS.map((id) => encodeToolName(id));
    expect(a).toBe(b);
    expect(a).toMatch(/-z[a-z2-7]{10}$/u);
  });

  it('agentTools and aiSdkTools both refuse them with INVALID_ARGUMENT naming both IDs', async () => {
    const exec = collidingExec();
    const refusals = [
      await agentTools(exec, { format: 'openai-chat' }).catch((e: unknown) => e),
      await aiSdkTools(exec).catch((e: unknown) => e),
    ];
    for (const err of refusals) {
      expect(hasErrorCode(err, 'INVALID_ARGUMENT')).toBe(true);
      expect((err as Error).message).toContain('have the same provider name');
      expect((err as { details?: unknown }).details).toMatchObject({ toolIds: [...COLLIDING_IDS].sort() });
    }
    // either one alone is fine
    expect(Object.keys(await aiSdkTools(exec, { ids: [COLLIDING_IDS[0]] }))).toEqual([encodeToolName(COLLIDING_IDS[0])]);
  });

  it('createMcpServer does not list one name for two tools: tools/list fails naming both IDs', async () => {
    const server = createMcpServer(collidingExec());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      await expect(client.listTools()).rejects.toThrow(/have the same provider name/u);
      await expect(client.listTools()).rejects.toThrow(COLLIDING_IDS[1]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
