/**
 * `npm run sandbox:image`: builds the local sandbox image the docker and gvisor backends use by
 * default (the host's node binary and its libraries, imported with `docker import`).
 *
 * Usage: node --import tsx scripts/sandbox-image.ts [--tag <image:tag>] [--node <path>] [--force] [--json]
 */
import { buildSandboxImage, type BuildSandboxImageOptions } from '../src/runtime/backends/docker/index.js';

function usage(): never {
  console.error('usage: sandbox-image [--tag <image:tag>] [--node <absolute path of node>] [--force] [--json]');
  process.exit(2);
}

const args = process.argv.slice(2);
const options: BuildSandboxImageOptions = {};
let json = false;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--force') options.force = true;
  else if (arg === '--json') json = true;
  else if (arg === '--tag' && args[i + 1] !== undefined) options.tag = args[++i];
  else if (arg === '--node' && args[i + 1] !== undefined) options.nodePath = args[++i];
  else usage();
}
if (!json) options.onProgress = (message) => console.log(`sandbox-image: ${message}`);

try {
  const image = await buildSandboxImage(options);
  if (json) console.log(JSON.stringify(image));
  else console.log(`sandbox-image: ${image.built ? 'built' : 'kept'} ${image.tag} ${image.id}`);
} catch (err) {
  const error = err as Error & { code?: string };
  console.error(`sandbox-image: ${error.code ?? 'ERROR'}: ${error.message}`);
  process.exitCode = 1;
}
