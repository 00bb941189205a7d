import { describe } from 'vitest';
import { createGvisorBackend } from '../../../../src/runtime/index.js';
import { skipGvisor } from './engine.js';
import { isolationSuite } from './isolation.js';

// 30 runs here (each gVisor start costs ~0.5 s of two CPUs); the docker suite does 100 with the same code path.
describe.skipIf(skipGvisor)('gvisor backend', () => {
  isolationSuite({ kind: 'gvisor', create: () => createGvisorBackend(), leakRuns: 30, leakConcurrency: 3 });
});
