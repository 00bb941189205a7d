/**
 * `npm run sandbox:image`: builds the local sandbox images the docker and gvisor backends use by
 * default, each with `docker import` from this machine's own interpreter and its libraries: the
 * node image (`toolexec-sandbox:node-<version>`) and the Python image
 * (`toolexec-sandbox:python-<version>`, from the `python3` on PATH, or `--python`).
 *
 * Without `--python`, a machine with no `python3` gets the node image and a notice (Python runs on
 * these backends then fail with RUNTIME_UNAVAILABLE); with `--python`, a Python image that cannot
 * be built fails the command.
 *
 * Usage: node --import tsx scripts/sandbox-image.ts [--tag <image:tag>] [--node <path>]
 *        [--python <path>] [--python-tag <image:tag>] [--no-python] [--force] [--json]
 */
import {
  buildPythonSandboxImage,
  buildSandboxImage,
  type BuildPythonSandboxImageOptions,
  type BuildSandboxImageOptions,
  type PythonSandboxImageInfo,
} from '../src/runtime/backends/docker/index.js';

function usage(): never {
  console.error(
    'usage: sandbox-image [--tag <image:tag>] [--node <absolute path of node>] [--python <python3 or its path>] [--python-tag <image:tag>] [--no-python] [--force] [--json]',
  );
  process.exit(2);
}

const args = process.argv.slice(2);
const options: BuildSandboxImageOptions = {};
const python: BuildPythonSandboxImageOptions = {};
let json = false;
let withPython = true;
let pythonNamed = false;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  const value = args[i + 1];
  if (arg === '--force') options.force = python.force = true;
  else if (arg === '--json') json = true;
  else if (arg === '--no-python') withPython = false;
  else if (arg === '--tag' && value !== undefined) options.tag = args[++i];
  else if (arg === '--node' && value !== undefined) options.nodePath = args[++i];
  else if (arg === '--python' && value !== undefined) {
    python.pythonPath = args[++i];
    pythonNamed = true;
  } else if (arg === '--python-tag' && value !== undefined) python.tag = args[++i];
  else usage();
}
const log = (message: string) => {
  if (!json) console.log(`sandbox-image: ${message}`);
};
options.onProgress = python.onProgress = log;

type Failure = Error & { code?: string };

try {
  const image = await buildSandboxImage(options);
  log(`${image.built ? 'built' : 'kept'} ${image.tag} ${image.id}`);
  let pythonImage: PythonSandboxImageInfo | { skipped: string } | undefined;
  if (withPython) {
    try {
      pythonImage = await buildPythonSandboxImage(python);
      log(`${pythonImage.built ? 'built' : 'kept'} ${pythonImage.tag} ${pythonImage.id}`);
    } catch (err) {
      const error = err as Failure;
      // no python3 on this machine and none asked for: the node image is what the backends need first
      if (pythonNamed || error.code !== 'RUNTIME_UNAVAILABLE' || !/cannot run python3/.test(error.message)) throw err;
      pythonImage = { skipped: error.message };
      console.error(`sandbox-image: no Python image: ${error.message}`);
    }
  }
  if (json) console.log(JSON.stringify(pythonImage === undefined ? image : { ...image, python: pythonImage }));
} catch (err) {
  const error = err as Failure;
  console.error(`sandbox-image: ${error.code ?? 'ERROR'}: ${error.message}`);
  process.exitCode = 1;
}
