import { describe } from 'vitest';
import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { createDockerBackend, createGvisorBackend } from '../../../../src/runtime/index.js';
import { engine, ensureImage, skipDocker, skipGvisor } from './engine.js';

// Every container gets a memory cap (256 MiB by default), so `limitsEnforced.memory` is always true.
describe.skipIf(skipDocker)(`docker contract (engine: ${engine.docker ? 'up' : 'missing'})`, () => {
  runtimeBackendContract(
    'docker',
    async () => {
      await ensureImage();
      return createDockerBackend();
    },
    { expectedKind: 'docker', expectedReadiness: 'prod', enforcesMemory: 'always' },
  );

  runtimeBackendContract(
    'docker with a warm pool',
    async () => {
      await ensureImage();
      const backend = createDockerBackend({ pool: { size: 2 } });
      await backend.warmUp();
      return backend;
    },
    { expectedKind: 'docker', expectedReadiness: 'beta', enforcesMemory: 'always' },
  );
});

describe.skipIf(skipGvisor)(`gvisor contract (runsc: ${engine.gvisor ? 'registered' : 'missing'})`, () => {
  runtimeBackendContract(
    'gvisor',
    async () => {
      await ensureImage();
      return createGvisorBackend();
    },
    { expectedKind: 'gvisor', expectedReadiness: 'prod', enforcesMemory: 'always', timeoutMs: 500 },
  );
});
