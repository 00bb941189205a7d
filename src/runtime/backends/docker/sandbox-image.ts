/**
 * The local sandbox image: the host's own `node` binary and the shared libraries it links, in an
 * otherwise empty root filesystem, imported with `docker import` (no registry, no Dockerfile).
 */
import { execFile, spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix } from 'node:path';
import type Dockerode from 'dockerode';
import { runtimeError } from '../../core/errors.js';
import { throwIfAborted } from '../../core/stopping.js';
import { connectDocker, dockerStatus, engineUnavailable, pingEngine, type DockerConnectionOptions } from './docker-client.js';

/** Where the image keeps `node`. */
export const SANDBOX_NODE_PATH = '/usr/local/bin/node';

/** The uid and gid snippets run as in the sandbox image (`nobody` / `nogroup`). */
export const SANDBOX_USER_ID = 65534;

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

/** A failed command, with what it printed. */
class CommandError extends Error {
  constructor(
    message: string,
    readonly output: string,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err !== null) reject(new CommandError(`${command} failed: ${err.message}`, `${stdout}${stderr}`, { cause: err }));
      else resolve(stdout);
    });
  });
}

/**
 * The shared libraries `binary` needs, as absolute paths (the dynamic loader included), read from
 * `ldd`. Empty for a statically linked binary.
 */
export async function sharedLibrariesOf(binary: string): Promise<string[]> {
  let output: string;
  try {
    output = await run('ldd', [binary]);
  } catch (err) {
    if (err instanceof CommandError && /not a dynamic executable|statically linked/.test(err.output)) return [];
    throw runtimeError(
      'RUNTIME_UNAVAILABLE',
      `runtime unavailable: cannot list the libraries of ${binary} with ldd (a Linux host is needed)`,
      {
        cause: err,
      },
    );
  }
  const paths: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '' || /statically linked/.test(line)) continue;
    const missing = /^(\S+) => not found/.exec(line);
    if (missing !== null) {
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${binary} needs ${missing[1]}, which ldd cannot find`);
    }
    const linked = /=>\s*(\/\S+)/.exec(line) ?? /^(\/\S+)/.exec(line);
    if (linked?.[1] !== undefined && !paths.includes(linked[1])) paths.push(linked[1]);
  }
  return paths;
}

/** `repo` and `tag` of an image reference (`registry:5000/name:tag` → `registry:5000/name`, `tag`). */
export function splitImageTag(reference: string): { repo: string; tag: string } {
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  if (colon > slash) return { repo: reference.slice(0, colon), tag: reference.slice(colon + 1) };
  return { repo: reference, tag: 'latest' };
}

async function inspectImage(docker: Dockerode, tag: string): Promise<{ id: string; nodeVersion?: string } | undefined> {
  try {
    const info = (await docker.getImage(tag).inspect()) as { Id: string; Config?: { Labels?: Record<string, string> | null } };
    const nodeVersion = info.Config?.Labels?.[SANDBOX_IMAGE_LABEL];
    return { id: info.Id, ...(nodeVersion === undefined ? {} : { nodeVersion }) };
  } catch (err) {
    if (dockerStatus(err) === 404) return undefined;
    throw engineUnavailable('cannot inspect the sandbox image', err);
  }
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
  await mkdir(join(root, 'etc'), { recursive: true });
  await writeFile(
    join(root, 'etc/passwd'),
    `root:x:0:0:root:/root:/nonexistent\nnobody:x:${SANDBOX_USER_ID}:${SANDBOX_USER_ID}:nobody:/nonexistent:/nonexistent\n`,
  );
  await writeFile(join(root, 'etc/group'), `root:x:0:\nnogroup:x:${SANDBOX_USER_ID}:\n`);
  files.push('/etc/passwd', '/etc/group');
  for (const dir of ['proc', 'sys', 'dev', 'tmp']) await mkdir(join(root, dir), { recursive: true });
  // world-writable and sticky: a tmpfs mounted here copies this mode (Docker's tmpcopyup)
  await chmod(join(root, 'tmp'), 0o1777);
  return files;
}

/** Streams `root` as a tar archive (every entry owned by root). */
function tarStream(root: string): { stream: NodeJS.ReadableStream; done: Promise<void> } {
  const tar = spawn('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', root, '-cf', '-', '.'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  tar.stderr.setEncoding('utf8');
  tar.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<void>((resolve, reject) => {
    tar.once('error', reject);
    tar.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`tar exited with code ${code ?? '?'}: ${stderr.trim()}`));
    });
  });
  return { stream: tar.stdout, done };
}

function followImport(docker: Dockerode, stream: NodeJS.ReadableStream): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, output: unknown[]) => {
      if (err !== null) {
        reject(err);
        return;
      }
      const failed = output.find((event) => typeof (event as { error?: unknown }).error === 'string') as { error: string } | undefined;
      if (failed !== undefined) reject(new Error(failed.error));
      else resolve(output);
    });
  });
}

const builds = new Map<string, Promise<SandboxImageInfo>>();

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
  const pending = builds.get(tag);
  if (pending !== undefined && options.force !== true) return pending;
  const build = buildImage(tag, options).finally(() => {
    if (builds.get(tag) === build) builds.delete(tag);
  });
  builds.set(tag, build);
  return build;
}

async function buildImage(tag: string, options: BuildSandboxImageOptions): Promise<SandboxImageInfo> {
  const progress = options.onProgress ?? (() => undefined);
  throwIfAborted(options.signal, 'sandbox image build');
  const docker = await connectDocker(options);
  await pingEngine(docker);
  if (options.force !== true) {
    const existing = await inspectImage(docker, tag);
    if (existing !== undefined) {
      progress(`${tag} exists (${existing.id.slice(0, 19)}); nothing to build`);
      return { tag, id: existing.id, built: false, ...(existing.nodeVersion === undefined ? {} : { nodeVersion: existing.nodeVersion }) };
    }
  }

  const nodePath = options.nodePath ?? process.execPath;
  if (!isAbsolute(nodePath)) throw runtimeError('INVALID_ARGUMENT', `nodePath must be absolute: ${nodePath}`);
  const nodeVersion = nodePath === process.execPath ? process.versions.node : (await run(nodePath, ['--version'])).trim().replace(/^v/, '');
  const libraries = await sharedLibrariesOf(nodePath);
  progress(`node ${nodeVersion} from ${nodePath}, ${libraries.length} shared libraries`);
  throwIfAborted(options.signal, 'sandbox image build');

  const root = await mkdtemp(join(tmpdir(), 'toolexec-sandbox-rootfs-'));
  try {
    const files = await writeRootfs(root, nodePath, libraries);
    progress(`root filesystem ready (${files.length} files); importing as ${tag}`);
    throwIfAborted(options.signal, 'sandbox image build');
    const { repo, tag: version } = splitImageTag(tag);
    const archive = tarStream(root);
    const changes = [
      `CMD ["${SANDBOX_NODE_PATH}"]`,
      `ENV PATH=${posix.dirname(SANDBOX_NODE_PATH)}:/usr/bin:/bin`,
      'ENV HOME=/tmp',
      `USER ${SANDBOX_USER_ID}:${SANDBOX_USER_ID}`,
      'WORKDIR /tmp',
      `LABEL ${SANDBOX_IMAGE_LABEL}=${nodeVersion}`,
    ];
    let imported: NodeJS.ReadableStream;
    try {
      imported = await docker.importImage(archive.stream, {
        repo,
        tag: version,
        changes,
        ...(options.signal === undefined ? {} : { abortSignal: options.signal }),
      });
      await Promise.all([followImport(docker, imported), archive.done]);
    } catch (err) {
      throwIfAborted(options.signal, 'sandbox image build');
      throw engineUnavailable(`cannot import the sandbox image ${tag}`, err);
    }
    const image = await inspectImage(docker, tag);
    if (image === undefined) throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the import of ${tag} left no image`);
    progress(`built ${tag} (${image.id.slice(0, 19)})`);
    return { tag, id: image.id, built: true, files, nodeVersion };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
