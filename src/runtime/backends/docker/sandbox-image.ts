/**
 * The local sandbox image: the host's own `node` binary and the shared libraries it links, in an
 * otherwise empty root filesystem, imported with `docker import` (no registry, no Dockerfile).
 */
import { chmod, copyFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { runtimeError } from '../../core/errors.js';
import { throwIfAborted } from '../../core/stopping.js';
import type { DockerConnectionOptions } from './docker-client.js';
import { buildOnce, importRootfs, openEngine, runCommand, sharedLibrariesOf, writeBaseFiles } from './image-import.js';

export { SANDBOX_USER_ID, sharedLibrariesOf } from './image-import.js';

/** Where the image keeps `node`. */
export const SANDBOX_NODE_PATH = '/usr/local/bin/node';

/**
 * The tag {@link createDockerBackend} uses when no image is given, and the tag
 * {@link buildSandboxImage} builds by default: one per Node version, so an upgraded host gets a
 * fresh image instead of a stale one.
 */
export const DEFAULT_SANDBOX_IMAGE = `toolexec-sandbox:node-${process.versions.node}`;

/** The label every sandbox image built here carries (value: the Node version inside). */
export const SANDBOX_IMAGE_LABEL = 'toolexec.sandbox.node';

/** Options of {@link buildSandboxImage}. */
export interface BuildSandboxImageOptions extends DockerConnectionOptions {
  /**
   * The image tag. Pass one when `nodePath` is not this process's node (the default tag names
   * this process's Node version). @defaultValue {@link DEFAULT_SANDBOX_IMAGE}
   */
  tag?: string;
  /** The (Linux, dynamically or statically linked) node binary to put in the image. @defaultValue process.execPath */
  nodePath?: string;
  /** Rebuild even when the tag exists. @defaultValue false */
  force?: boolean;
  /** Cancels the build (`ABORTED`). */
  signal?: AbortSignal;
  /** Receives one line per step (for CLIs). */
  onProgress?: (message: string) => void;
}

/** What {@link buildSandboxImage} did. */
export interface SandboxImageInfo {
  /** The tag. */
  tag: string;
  /** The image ID (`sha256:...`). */
  id: string;
  /** False when the tag already existed and nothing was built. */
  built: boolean;
  /** The files put in the image (node, its libraries, `/etc/passwd`, `/etc/group`), when built. */
  files?: string[];
  /** The Node version in the image (from the image label, or the binary when built). */
  nodeVersion?: string;
}

/** Writes the root filesystem under `root`; returns the files it holds (image paths). */
async function writeRootfs(root: string, nodePath: string, libraries: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  const put = async (imagePath: string, source: string, mode: number) => {
    const target = join(root, imagePath);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(source, target);
    await chmod(target, mode);
    files.push(imagePath);
  };
  await put(SANDBOX_NODE_PATH, nodePath, 0o755);
  for (const library of libraries) await put(library, library, 0o755);
  files.push(...(await writeBaseFiles(root)));
  return files;
}

/**
 * Builds the sandbox image from this machine's node binary, unless the tag already exists.
 *
 * @remarks
 * The root filesystem holds `/usr/local/bin/node` (a copy of `nodePath`), every shared library
 * `ldd` lists for it at the same path (the dynamic loader included), `/etc/passwd` and
 * `/etc/group` with `nobody`/`nogroup` (65534), empty `/proc`, `/sys`, `/dev`, and `/tmp` with
 * mode 1777. No shell, no package manager. It is tarred with `tar` and imported with the engine's
 * image import (`docker import`), setting `CMD ["/usr/local/bin/node"]`, `PATH`, `HOME=/tmp`,
 * `USER 65534:65534`, `WORKDIR /tmp` and the label {@link SANDBOX_IMAGE_LABEL}. About 100 MB.
 *
 * Idempotent: an existing tag is left alone (`built: false`) unless `force` is set; concurrent
 * calls for one tag in this process share one build. The npm script `sandbox:image` runs it.
 *
 * @throws `RUNTIME_UNAVAILABLE` when dockerode is missing, the engine does not answer, `ldd` or
 * `tar` are missing, or the import fails; `ABORTED` when `signal` aborts.
 */
export function buildSandboxImage(options: BuildSandboxImageOptions = {}): Promise<SandboxImageInfo> {
  const tag = options.tag ?? DEFAULT_SANDBOX_IMAGE;
  return buildOnce(tag, options.force, () => buildImage(tag, options));
}

async function buildImage(tag: string, options: BuildSandboxImageOptions): Promise<SandboxImageInfo> {
  const progress = options.onProgress ?? (() => undefined);
  const { docker, existing } = await openEngine(tag, SANDBOX_IMAGE_LABEL, options, progress);
  if (existing !== undefined) {
    return { tag, id: existing.id, built: false, ...(existing.version === undefined ? {} : { nodeVersion: existing.version }) };
  }

  const nodePath = options.nodePath ?? process.execPath;
  if (!isAbsolute(nodePath)) throw runtimeError('INVALID_ARGUMENT', `nodePath must be absolute: ${nodePath}`);
  const nodeVersion =
    nodePath === process.execPath ? process.versions.node : (await runCommand(nodePath, ['--version'])).trim().replace(/^v/, '');
  const libraries = await sharedLibrariesOf(nodePath);
  progress(`node ${nodeVersion} from ${nodePath}, ${libraries.length} shared libraries`);
  throwIfAborted(options.signal, 'sandbox image build');

  const { id, written: files } = await importRootfs(
    docker,
    {
      rootPrefix: 'toolexec-sandbox-rootfs-',
      tag,
      label: SANDBOX_IMAGE_LABEL,
      program: SANDBOX_NODE_PATH,
      version: nodeVersion,
      signal: options.signal,
      progress,
    },
    async (root) => {
      const written = await writeRootfs(root, nodePath, libraries);
      progress(`root filesystem ready (${written.length} files); importing as ${tag}`);
      return written;
    },
  );
  return { tag, id, built: true, files, nodeVersion };
}
