/**
 * The guests a container backend runs, one per language: which image, which command, which
 * program the loader receives on stdin. Both speak the same channel, so everything after the
 * container start (the session, the gateway, the limits) is shared.
 */
import { nodeGuestSource } from '../../guest/node-guest.js';
import { isPythonLanguage } from '../../core/snippet.js';
import type { ExecuteRequest } from '../../core/types.js';
import { containerHeapBytes, type ResolvedContainerLimits } from './container-spec.js';
import type { ResolvedOptions } from './options.js';
import { pythonGuestCommand, pythonGuestProgram } from './python-guest.js';
import { hostPythonSandboxImage } from './python-image.js';

/** The languages the docker and gvisor backends run (`RuntimeBackend.languages`). */
export const CONTAINER_LANGUAGES: readonly string[] = Object.freeze(['javascript', 'typescript', 'python']);

/** A guest of the container backends: the node guest (JavaScript, TypeScript) or the Python guest. */
export type ContainerGuestLanguage = 'javascript' | 'python';

/** The guest a request's `language` runs on: `python` / `py` (any case) → Python, anything else → the node guest (which refuses what it does not run). */
export function guestLanguageOf(language: ExecuteRequest['language']): ContainerGuestLanguage {
  return isPythonLanguage(language) ? 'python' : 'javascript';
}

/** How one language's containers are made. */
export interface ContainerGuest {
  readonly language: ContainerGuestLanguage;
  /** The image (resolved on first use: the Python image's default tag names the host's Python version). */
  image(): Promise<string>;
  /** The container command; undefined = the node guest loader with its heap cap (`containerCreateOptions`). */
  command(): string[] | undefined;
  /** The program the loader receives as its first stdin line. */
  program(): Promise<string>;
  /** What the run's `backend.details` say about the guest beyond the container limits. */
  details(limits: ResolvedContainerLimits): Record<string, unknown>;
}

function nodeGuest(options: ResolvedOptions): ContainerGuest {
  const image = Promise.resolve(options.image);
  return {
    language: 'javascript',
    image: () => image,
    command: () => undefined,
    program: nodeGuestSource,
    details: (limits) => (limits.memoryBytes > 0 ? { heapLimitBytes: containerHeapBytes(limits.memoryBytes) } : {}),
  };
}

function pythonGuest(options: ResolvedOptions): ContainerGuest {
  let image: Promise<string> | undefined;
  let program: string | undefined;
  return {
    language: 'python',
    image: () => {
      image ??= (options.pythonImage === undefined ? hostPythonSandboxImage() : Promise.resolve(options.pythonImage)).catch(
        (err: unknown) => {
          image = undefined;
          throw err;
        },
      );
      return image;
    },
    command: () => pythonGuestCommand(options.pythonPath),
    program: async () => {
      program ??= pythonGuestProgram();
      return program;
    },
    details: () => ({ language: 'python' }),
  };
}

/** The guests of one backend. */
export function containerGuests(options: ResolvedOptions): Readonly<Record<ContainerGuestLanguage, ContainerGuest>> {
  return { javascript: nodeGuest(options), python: pythonGuest(options) };
}
