import { describe } from 'vitest';
import { hostileCodeSuite, type HostileCodeSuiteOptions } from '../../../../src/testing/hostile-code.js';
import { createDockerBackend, createGvisorBackend } from '../../../../src/runtime/index.js';
import { ensureImage, skipDocker, skipGvisor } from './engine.js';

const options: HostileCodeSuiteOptions = {
  // A container has a filesystem of its own: its /etc/passwd (root and nobody, no secrets) is
  // readable there, so `etc-passwd` only checks that the run completes.
  ownFilesystem: true,
};

describe.skipIf(skipDocker)('docker hostile code', () => {
  hostileCodeSuite(
    'docker',
    async () => {
      await ensureImage();
      return createDockerBackend();
    },
    options,
  );
});

describe.skipIf(skipGvisor)('gvisor hostile code', () => {
  hostileCodeSuite(
    'gvisor',
    async () => {
      await ensureImage();
      return createGvisorBackend();
    },
    options,
  );
});
