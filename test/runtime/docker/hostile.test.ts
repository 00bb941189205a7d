import { describe } from 'vitest';
import { hostileCodeSuite, type HostileCodeSuiteOptions } from '../../../src/testing/hostile-code.js';
import { createDockerBackend, createGvisorBackend } from '../../../src/runtime/index.js';
import { ensureImage, skipDocker, skipGvisor } from './engine.js';

const options: HostileCodeSuiteOptions = {
  // A container has a filesystem of its own: its /etc/passwd (root and nobody, no secrets) is
  // readable there, so `etc-passwd` only checks that the run completes.
  ownFilesystem: true,
  expect: {
    // The node guest (assets/node-guest.cjs) shares its realm with the snippet and calls
    // JSON.parse / Map.prototype.get when a tool reply arrives: a snippet that replaces them never
    // sees its reply and runs into the timeout. The host's intrinsics stay untouched (the suite
    // checks that); the unsafe_host backend, which runs the same guest, hangs the same way.
    'intrinsics-tampering': ['TIMEOUT'],
  },
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
