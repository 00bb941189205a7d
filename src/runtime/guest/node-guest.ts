/**
 * How a host starts the node guest (the bundle `node-guest.cjs`, built from `./node/`): from its
 * file, or from stdin through a small loader when the guest's filesystem does not have the file
 * (containers, VMs, remote hosts).
 */
import { readFile } from 'node:fs/promises';
import { assetPath } from './assets.js';

/** The file name of the node guest bundle. */
export const NODE_GUEST_ASSET = 'node-guest.cjs';

/** The absolute path of the node guest program on this machine. */
export function nodeGuestPath(): string {
  return assetPath(NODE_GUEST_ASSET);
}

let sourceCache: Promise<string> | undefined;

/** The node guest program's source (read once). */
export function nodeGuestSource(): Promise<string> {
  sourceCache ??= readFile(nodeGuestPath(), 'utf8').catch((err: unknown) => {
    sourceCache = undefined;
    throw err;
  });
  return sourceCache;
}

/**
 * A loader for `node -e`: reads the first stdin line, `{"type":"program","source":"..."}`, puts the
 * rest of the input back, and runs the source as a CommonJS body (with `require`). After it, the
 * guest speaks the protocol on stdin/stdout as usual. Small enough for any argv (well under 1 KiB).
 */
export const NODE_GUEST_LOADER = [
  "let b='';const s=process.stdin;s.setEncoding('utf8');",
  "const on=(c)=>{b+=c;const i=b.indexOf('\\n');if(i<0)return;s.off('data',on);s.pause();",
  'const m=JSON.parse(b.slice(0,i));const r=b.slice(i+1);if(r)s.unshift(r);',
  "require('node:vm').runInThisContext('(function(require){'+String(m.source)+'\\n})',",
  "{filename:'node-guest.cjs'})(require)};",
  "s.on('data',on);",
].join('');

/** Options of {@link nodeGuestArgs}. */
export interface NodeGuestArgsOptions {
  /**
   * `file`: run the guest from {@link nodeGuestPath} (or `guestPath`); `stdin`: run
   * {@link NODE_GUEST_LOADER} and send the program as the first stdin line
   * ({@link nodeGuestProgramMessage}). @defaultValue 'file'
   */
  mode?: 'file' | 'stdin';
  /** The guest's path as the guest's filesystem sees it (mode `file`). @defaultValue nodeGuestPath() */
  guestPath?: string;
  /** V8 heap cap: `--max-old-space-size` in MiB (at least 1). A heap cap, not a process memory cap. */
  memoryBytes?: number;
  /** Extra node flags, placed before the program. */
  nodeFlags?: readonly string[];
}

/** The V8 old-space cap in MiB for `memoryBytes` (floor, at least 1). */
export function heapLimitMiB(memoryBytes: number): number {
  return Math.max(1, Math.floor(memoryBytes / (1024 * 1024)));
}

/** The argv (after the node binary) that starts the guest. */
export function nodeGuestArgs(options: NodeGuestArgsOptions = {}): string[] {
  const args: string[] = [];
  if (options.memoryBytes !== undefined && options.memoryBytes > 0) {
    args.push(`--max-old-space-size=${heapLimitMiB(options.memoryBytes)}`);
  }
  args.push(...(options.nodeFlags ?? []));
  if ((options.mode ?? 'file') === 'stdin') args.push('-e', NODE_GUEST_LOADER);
  else args.push(options.guestPath ?? nodeGuestPath());
  return args;
}

/** The first stdin line for mode `stdin`: the guest program. */
export async function nodeGuestProgramMessage(): Promise<{
  /** Always `program`. */
  type: 'program';
  /** The node guest's source, which the loader evaluates. */
  source: string;
}> {
  return { type: 'program', source: await nodeGuestSource() };
}
