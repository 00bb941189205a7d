/**
 * The guest part of every spec: the node guest started from stdin through the loader.
 */
import { randomBytes } from 'node:crypto';
import { NODE_GUEST_LOADER, heapLimitMiB, nodeGuestSource } from '../../guest/node-guest.js';
import { GUEST_PROTOCOL, type GuestSpec } from './contract.js';

/** The default image of the containerd, kata, firecracker and kubernetes backends. It must provide `node` >= 20 on the PATH. */
export const DEFAULT_SPEC_SANDBOX_IMAGE = 'toolruntime-sandbox:latest';

/** The guest's working directory inside a sandbox. */
export const GUEST_WORKING_DIR = '/tmp';

/** Options of {@link buildGuestSpec}. */
export interface GuestSpecOptions {
  /** The prepared JavaScript snippet. */
  code: string;
  /** The request's language before preparation. */
  language: string;
  /** The node binary inside the sandbox. @defaultValue 'node' */
  nodeCommand?: string;
  /** Extra node flags. */
  nodeFlags?: readonly string[];
  /** A V8 heap cap (`--max-old-space-size`), from `limits.memoryBytes`. */
  memoryBytes?: number;
  /** @defaultValue {@link GUEST_WORKING_DIR} */
  workingDir?: string;
}

/** Builds the {@link GuestSpec}: `node -e <loader>` with the program delivered on stdin. */
export async function buildGuestSpec(options: GuestSpecOptions): Promise<GuestSpec> {
  const command = [options.nodeCommand ?? 'node'];
  if (options.memoryBytes !== undefined && options.memoryBytes > 0) {
    command.push(`--max-old-space-size=${heapLimitMiB(options.memoryBytes)}`);
  }
  command.push(...(options.nodeFlags ?? []), '-e', NODE_GUEST_LOADER);
  return {
    command,
    env: {},
    workingDir: options.workingDir ?? GUEST_WORKING_DIR,
    protocol: GUEST_PROTOCOL,
    channel: 'stdio',
    program: await nodeGuestSource(),
    code: options.code,
    language: options.language,
  };
}

/** A random run id: 12 lowercase hex characters (valid in container, pod and VM names). */
export function newRunId(): string {
  return randomBytes(6).toString('hex');
}
