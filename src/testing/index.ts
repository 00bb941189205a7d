/**
 * Test support for users' own tests and for every implementation in this repo: vitest contract
 * suites (runtime backends, gateways, tool indexes, schema validators, hostile code) and test
 * doubles for the interfaces a user injects (MCP and provider executors, sandbox clients).
 *
 * @remarks This module imports `vitest` (an optional peer dependency), for its suites: install it
 * to import anything from here, the doubles included. ESM only.
 *
 * @module toolexec/testing
 */
export { runtimeBackendContract } from './runtime-contract.js';
export type { RuntimeBackendContractOptions } from './runtime-contract.js';
export { createContractFixture, gatewayContract } from './gateway-contract.js';
export type { ClosableGateway, ContractFixture } from './gateway-contract.js';
export { toolIndexContract } from './tool-index-contract.js';
export { schemaValidatorContract } from './schema-validator-contract.js';
export { HOSTILE_CASES, hostileCodeSuite } from './hostile-code.js';
export type { HostileCase, HostileCodeSuiteOptions, HostileOutcome } from './hostile-code.js';
export { createFakeMcpExecutor, createFakeProviderExecutor } from './executor-doubles.js';
export type {
  FakeMcpExecutor,
  FakeMcpTool,
  FakeProviderExecutor,
  FakeProviderTool,
  FakeToolContext,
  RecordedCall,
} from './executor-doubles.js';
export { createLocalProcessClient, createProxmoxApiDouble, createRecordingClient } from './runtime-clients.js';
export type {
  LocalProcessClient,
  LocalProcessClientOptions,
  ProxmoxApiDouble,
  ProxmoxApiDoubleOptions,
  RecordingClient,
  RecordingClientOptions,
} from './runtime-clients.js';
