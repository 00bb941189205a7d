/**
 * What every local sandbox image shares: running a host command, the base files of the root
 * filesystem, and importing that root filesystem as an image with the engine's image import
 * (`docker import`: no registry, no Dockerfile).
 */
import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type Dockerode from 'dockerode';
import { runtimeError } from '../../core/errors.js';
import { throwIfAborted } from '../../core/stopping.js';
import { connectDocker, dockerStatus, engineUnavailable, pingEngine, type DockerConnectionOptions } from './docker-client.js';

/** The uid and gid snippets run as in the sandbox images (`nobody` / `nogroup`). */
export const SANDBOX_USER_ID = 65534;

/** A failed command, with what it printed. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly output: string,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** Runs `command` and resolves to its stdout; rejects with a {@link CommandError}. */
export function runCommand(command: string, args: readonly string[]): Promise<string> {
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
    output = await runCommand('ldd', [binary]);
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

/** The image's id and the value of its `label`, or undefined when the tag does not exist. */
export async function inspectImage(docker: Dockerode, tag: string, label: string): Promise<{ id: string; version?: string } | undefined> {
  try {
    const info = (await docker.getImage(tag).inspect()) as { Id: string; Config?: { Labels?: Record<string, string> | null } };
    const version = info.Config?.Labels?.[label];
    return { id: info.Id, ...(version === undefined ? {} : { version }) };
  } catch (err) {
    if (dockerStatus(err) === 404) return undefined;
    throw engineUnavailable('cannot inspect the sandbox image', err);
  }
}

/**
 * Writes the files every sandbox image has: `/etc/passwd` and `/etc/group` with `nobody` /
 * `nogroup` ({@link SANDBOX_USER_ID}), empty `/proc`, `/sys`, `/dev`, and `/tmp` with mode 1777.
 * Returns the files written (image paths).
 */
export async function writeBaseFiles(root: string): Promise<string[]> {
  await mkdir(join(root, 'etc'), { recursive: true });
  await writeFile(
    join(root, 'etc/passwd'),
    `root:x:0:0:root:/root:/nonexistent\nnobody:x:${SANDBOX_USER_ID}:${SANDBOX_USER_ID}:nobody:/nonexistent:/nonexistent\n`,
  );
  await writeFile(join(root, 'etc/group'), `root:x:0:\nnogroup:x:${SANDBOX_USER_ID}:\n`);
  for (const dir of ['proc', 'sys', 'dev', 'tmp']) await mkdir(join(root, dir), { recursive: true });
  // world-writable and sticky: a tmpfs mounted here copies this mode (Docker's tmpcopyup)
  await chmod(join(root, 'tmp'), 0o1777);
  return ['/etc/passwd', '/etc/group'];
}

/** Streams `root` as a tar archive (every entry owned by root, in name order). */
function tarStream(root: string): { stream: NodeJS.ReadableStream; done: Promise<void> } {
  const tar = spawn('tar', ['--numeric-owner', '--owner=0', '--group=0', '--sort=name', '-C', root, '-cf', '-', '.'], {
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

/** What {@link importRootfs} needs. */
export interface ImportRootfsOptions {
  /** Names the temporary folder the root filesystem is written to (removed afterwards). */
  rootPrefix: string;
  /** The image reference to create. */
  tag: string;
  /**
   * The image's program, an absolute path inside the root filesystem: the image's `CMD`, and its
   * folder leads `PATH`. The image runs as the unprivileged user {@link SANDBOX_USER_ID} in `/tmp`
   * (also `HOME`).
   */
  program: string;
  /** The label whose value {@link inspectImage} reports as the version. */
  label: string;
  /** The program's version, stored under `label`. */
  version: string;
  /** Cancels the import (`ABORTED`). */
  signal?: AbortSignal | undefined;
  /** Told when the image is built. */
  progress: (message: string) => void;
}

/**
 * Writes a root filesystem (`write`, into a fresh temporary folder, removed afterwards), tars it
 * and imports it as `tag`; resolves to the new image's id and what `write` returned.
 * @throws `RUNTIME_UNAVAILABLE` when `tar` or the import fails; `ABORTED` when `signal` aborts.
 */
export async function importRootfs<W>(
  docker: Dockerode,
  options: ImportRootfsOptions,
  write: (root: string) => Promise<W>,
): Promise<{ id: string; written: W }> {
  const root = await mkdtemp(join(tmpdir(), options.rootPrefix));
  try {
    const written = await write(root);
    throwIfAborted(options.signal, 'sandbox image build');
    const id = await importFolder(docker, root, options);
    options.progress(`built ${options.tag} (${id.slice(0, 19)})`);
    return { id, written };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function importFolder(docker: Dockerode, root: string, options: ImportRootfsOptions): Promise<string> {
  const { repo, tag: version } = splitImageTag(options.tag);
  const archive = tarStream(root);
  try {
    const imported = await docker.importImage(archive.stream, {
      repo,
      tag: version,
      changes: [
        `CMD ["${options.program}"]`,
        `ENV PATH=${posix.dirname(options.program)}:/usr/bin:/bin`,
        'ENV HOME=/tmp',
        `USER ${SANDBOX_USER_ID}:${SANDBOX_USER_ID}`,
        'WORKDIR /tmp',
        `LABEL ${options.label}=${options.version}`,
      ],
      ...(options.signal === undefined ? {} : { abortSignal: options.signal }),
    });
    await Promise.all([followImport(docker, imported), archive.done]);
  } catch (err) {
    throwIfAborted(options.signal, 'sandbox image build');
    throw engineUnavailable(`cannot import the sandbox image ${options.tag}`, err);
  }
  const image = await inspectImage(docker, options.tag, options.label);
  if (image === undefined) throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the import of ${options.tag} left no image`);
  return image.id;
}

/** The builds in flight, by tag: a second request for a tag being built shares the first. */
const builds = new Map<string, Promise<unknown>>();

/** Runs `build` for `tag`, or joins the build of `tag` already running (unless `force`). */
export function buildOnce<T>(tag: string, force: boolean | undefined, build: () => Promise<T>): Promise<T> {
  const pending = builds.get(tag) as Promise<T> | undefined;
  if (pending !== undefined && force !== true) return pending;
  const started = build().finally(() => {
    if (builds.get(tag) === started) builds.delete(tag);
  });
  builds.set(tag, started);
  return started;
}

/** What {@link openEngine} needs: the engine to reach, and the image to look for. */
export interface OpenEngineOptions extends DockerConnectionOptions {
  /** Rebuild even when the image exists. */
  force?: boolean | undefined;
  /** Cancels the build (`ABORTED`). */
  signal?: AbortSignal | undefined;
}

/**
 * Connects to the engine (after checking `signal`) and looks for the image `tag` with `label`,
 * unless `force`: an image found is reported through `progress` and returned as `existing`.
 */
export async function openEngine(
  tag: string,
  label: string,
  options: OpenEngineOptions,
  progress: (message: string) => void,
): Promise<{ docker: Dockerode; existing: { id: string; version?: string } | undefined }> {
  throwIfAborted(options.signal, 'sandbox image build');
  const docker = await connectDocker(options);
  await pingEngine(docker);
  const existing = options.force === true ? undefined : await inspectImage(docker, tag, label);
  if (existing !== undefined) progress(`${tag} exists (${existing.id.slice(0, 19)}); nothing to build`);
  return { docker, existing };
}
