/**
 * The local Python sandbox image: the host's own `python3` (the real binary behind any shim), the
 * shared libraries it and its extension modules link, and its standard library without tests,
 * GUI toolkits, `pip`'s bootstrap or third-party packages, imported with `docker import` like the
 * node image.
 */
import { chmod, copyFile, cp, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { runtimeError } from '../../core/errors.js';
import type { DockerConnectionOptions } from './docker-client.js';
import { CommandError, buildOnce, importRootfs, openEngine, runCommand, sharedLibrariesOf, writeBaseFiles } from './image-import.js';

/** Where the Python image keeps the interpreter. */
export const SANDBOX_PYTHON_PATH = '/usr/local/bin/python3';

/** The label every Python sandbox image built here carries (value: the Python version inside). */
export const PYTHON_SANDBOX_IMAGE_LABEL = 'toolexec.sandbox.python';

/** The repository and tag prefix of the Python images: `toolexec-sandbox:python-<version>`. */
const TAG_PREFIX = 'toolexec-sandbox:python-';

/** Options of {@link buildPythonSandboxImage}. */
export interface BuildPythonSandboxImageOptions extends DockerConnectionOptions {
  /** The image tag. @defaultValue `toolexec-sandbox:python-<the interpreter's version>` */
  tag?: string;
  /**
   * The Python to put in the image: a `python3` on `PATH`, a shim (pyenv, asdf) or the binary; it
   * is run once to find the real executable and its standard library. @defaultValue 'python3'
   */
  pythonPath?: string;
  /** Rebuild even when the tag exists. @defaultValue false */
  force?: boolean;
  /** Cancels the build (`ABORTED`). */
  signal?: AbortSignal;
  /** Receives one line per step (for CLIs). */
  onProgress?: (message: string) => void;
}

/** What {@link buildPythonSandboxImage} did. */
export interface PythonSandboxImageInfo {
  /** The tag. */
  tag: string;
  /** The image ID (`sha256:...`). */
  id: string;
  /** False when the tag already existed and nothing was built. */
  built: boolean;
  /** The Python version in the image (`3.11.7`). */
  pythonVersion?: string;
  /** The interpreter the image was made from (the real binary), when built. */
  executable?: string;
  /** Files and directories in the image, when built (the standard library is counted, not listed). */
  files?: number;
  /** Extension modules left out (a test module, a GUI toolkit, or a library `ldd` cannot find), when built. */
  skippedModules?: string[];
}

/** What the host's interpreter says about itself. */
interface HostPython {
  executable: string;
  version: string;
  /** `3.11` */
  short: string;
  stdlib: string;
  platstdlib: string;
  platlibdir: string;
}

const PROBE = [
  'import json, os, sys, sysconfig',
  'p = sysconfig.get_paths()',
  'print(json.dumps({"executable": os.path.realpath(sys.executable), "version": "%d.%d.%d" % sys.version_info[:3],',
  ' "short": "%d.%d" % sys.version_info[:2], "stdlib": p["stdlib"], "platstdlib": p["platstdlib"],',
  ' "platlibdir": getattr(sys, "platlibdir", "lib")}))',
].join('\n');

const probes = new Map<string, Promise<HostPython>>();

/** Runs `pythonPath` once to learn its real executable, version and standard library (cached per path). */
function probeHostPython(pythonPath: string): Promise<HostPython> {
  let probe = probes.get(pythonPath);
  if (probe === undefined) {
    probe = runCommand(pythonPath, ['-I', '-S', '-c', PROBE]).then(
      (stdout) => JSON.parse(stdout) as HostPython,
      (err: unknown) => {
        probes.delete(pythonPath);
        const output = err instanceof CommandError ? err.output.trim() : '';
        throw runtimeError(
          'RUNTIME_UNAVAILABLE',
          `runtime unavailable: cannot run ${pythonPath} to make the Python sandbox image (install python3, e.g. \`apt-get install python3\`)${output === '' ? '' : `: ${output}`}`,
          { cause: err, details: { pythonPath } },
        );
      },
    );
    probes.set(pythonPath, probe);
  }
  return probe;
}

/**
 * The tag of the Python image made from this machine's `python3` (or `pythonPath`):
 * `toolexec-sandbox:python-<version>`. The docker and gvisor backends use it when no `pythonImage`
 * is given.
 * @throws `RUNTIME_UNAVAILABLE` when that interpreter cannot be run.
 */
export async function hostPythonSandboxImage(pythonPath = 'python3'): Promise<string> {
  return `${TAG_PREFIX}${(await probeHostPython(pythonPath)).version}`;
}

/** Directories of the standard library left out wherever they are. */
const PRUNED_DIRS = new Set([
  'test',
  'tests',
  'idle_test',
  'site-packages',
  'dist-packages',
  'idlelib',
  'tkinter',
  'turtledemo',
  'ensurepip',
]);
/** Extension modules left out: CPython's own test modules and the Tk binding. */
const PRUNED_MODULES = /^(_test|_ctypes_test|_xx|xx|_tkinter)/;

function keepInStdlib(source: string, stdlib: string): boolean {
  const name = basename(source);
  if (source === stdlib) return true;
  if (/\.opt-[12]\.pyc$/.test(name)) return false; // the image never runs with -O
  if (PRUNED_DIRS.has(name) || /^config-\d/.test(name)) return false;
  return !(dirname(source).endsWith('lib-dynload') && PRUNED_MODULES.test(name));
}

async function countEntries(dir: string): Promise<number> {
  return (await readdir(dir, { recursive: true })).length;
}

/**
 * Writes the root filesystem under `root`. Libraries keep their host paths (the interpreter's
 * `RUNPATH` may name them); the standard library moves to `/usr/local/<platlibdir>/pythonX.Y`,
 * where the interpreter at {@link SANDBOX_PYTHON_PATH} finds it by itself.
 */
async function writeRootfs(root: string, python: HostPython): Promise<{ files: number; skipped: string[] }> {
  const libraries = new Set(await sharedLibrariesOf(python.executable));
  // binary and libraries are copied through their symlinks (`/lib64/ld-linux-x86-64.so.2` is one)
  const put = async (imagePath: string, source: string) => {
    const path = join(root, imagePath);
    await mkdir(dirname(path), { recursive: true });
    await copyFile(source, path);
    await chmod(path, 0o755);
  };
  await put(SANDBOX_PYTHON_PATH, python.executable);
  const target = join(root, '/usr/local', python.platlibdir, `python${python.short}`);
  // modification times are kept: the cached bytecode (__pycache__) is valid only for them
  const copy = { recursive: true, preserveTimestamps: true, verbatimSymlinks: true } as const;
  for (const dir of new Set([python.stdlib, python.platstdlib])) {
    await cp(dir, target, { ...copy, filter: (source) => keepInStdlib(source, dir) });
  }
  const skipped: string[] = [];
  const dynload = join(target, 'lib-dynload');
  const modules = await readdir(dynload).catch(() => [] as string[]);
  for (const module of modules.filter((name) => name.endsWith('.so'))) {
    try {
      for (const library of await sharedLibrariesOf(join(dynload, module))) libraries.add(library);
    } catch {
      skipped.push(module);
      await rm(join(dynload, module), { force: true });
    }
  }
  for (const library of libraries) await put(library, library);
  await writeBaseFiles(root);
  return { files: await countEntries(root), skipped };
}

/**
 * Builds the Python sandbox image from this machine's `python3`, unless the tag already exists.
 *
 * @remarks
 * The root filesystem holds the real interpreter at {@link SANDBOX_PYTHON_PATH}, every shared
 * library `ldd` lists for it and for its extension modules (at their host paths), the standard
 * library (without `test`/`tests` directories, `idlelib`, `tkinter`, `turtledemo`, `ensurepip`,
 * `site-packages`, the `config-*` build directory, `-O` bytecode and CPython's test extension
 * modules; an extension module whose library `ldd` cannot find is left out too and named in
 * `skippedModules`), `/etc/passwd` and `/etc/group` with `nobody` (65534), and `/tmp` (1777). No
 * shell, no pip, no third-party package. Imported with the engine's image import, setting
 * `CMD ["/usr/local/bin/python3"]`, `PATH`, `HOME=/tmp`, `USER 65534:65534`, `WORKDIR /tmp` and
 * the label {@link PYTHON_SANDBOX_IMAGE_LABEL}. About 60–80 MB for CPython 3.11.
 *
 * Idempotent like the node image's build: an existing tag is kept unless `force` is set. The npm
 * script `sandbox:image` builds both images.
 *
 * @throws `RUNTIME_UNAVAILABLE` when the interpreter cannot be run, dockerode is missing, the
 * engine does not answer, `ldd` or `tar` are missing, or the import fails; `ABORTED` when `signal`
 * aborts.
 */
export async function buildPythonSandboxImage(options: BuildPythonSandboxImageOptions = {}): Promise<PythonSandboxImageInfo> {
  const python = await probeHostPython(options.pythonPath ?? 'python3');
  const tag = options.tag ?? `${TAG_PREFIX}${python.version}`;
  return buildOnce(tag, options.force, () => buildImage(tag, python, options));
}

async function buildImage(tag: string, python: HostPython, options: BuildPythonSandboxImageOptions): Promise<PythonSandboxImageInfo> {
  const progress = options.onProgress ?? (() => undefined);
  const { docker, existing } = await openEngine(tag, PYTHON_SANDBOX_IMAGE_LABEL, options, progress);
  if (existing !== undefined) {
    return { tag, id: existing.id, built: false, ...(existing.version === undefined ? {} : { pythonVersion: existing.version }) };
  }
  if (!(await stat(python.executable)).isFile()) {
    throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${python.executable} is not a file`);
  }
  progress(`python ${python.version} from ${python.executable}, standard library ${python.stdlib}`);
  const { id, written } = await importRootfs(
    docker,
    {
      rootPrefix: 'toolexec-python-rootfs-',
      tag,
      label: PYTHON_SANDBOX_IMAGE_LABEL,
      program: SANDBOX_PYTHON_PATH,
      version: python.version,
      signal: options.signal,
      progress,
    },
    async (root) => {
      const written = await writeRootfs(root, python);
      if (written.skipped.length > 0) progress(`left out extension modules whose libraries ldd cannot find: ${written.skipped.join(', ')}`);
      progress(`root filesystem ready (${written.files} entries); importing as ${tag}`);
      return written;
    },
  );
  const { files, skipped } = written;
  return { tag, id, built: true, pythonVersion: python.version, executable: python.executable, files, skippedModules: skipped };
}
