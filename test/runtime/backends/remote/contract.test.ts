import { afterAll } from 'vitest';
import { createRemoteBackend, createUnsafeHostBackend } from '../../../../src/runtime/index.js';
import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { runtimeServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
});

// The server's operator opts in to host execution; the client's metadata carries no opt-in.
runtimeBackendContract(
  'remote (over 127.0.0.1, unsafe_host behind it)',
  async () => {
    server = await runtimeServer({ backend: createUnsafeHostBackend({ optIn: true }) });
    return createRemoteBackend({ url: server.url, secret: 'remote-test-secret-0123456789abcdef' });
  },
  { expectedKind: 'remote', expectedReadiness: 'beta', enforcesMemory: false },
);
