import { PassThrough } from 'node:stream';
import type Dockerode from 'dockerode';
import { describe, expect, it } from 'vitest';
import { startSandboxContainer } from '../../../src/runtime/backends/docker/sandbox-container.js';

interface State {
  OOMKilled: boolean;
  ExitCode: number;
}

/**
 * A Docker client double (the backend's `docker` option) whose container reports the states in
 * `states`, one per inspect (the last one repeats): the engine's OOM flag can lag the exit.
 */
function fakeDocker(states: State[]): { docker: Dockerode; inspections: () => number } {
  let inspections = 0;
  const container = {
    id: 'c1',
    attach: () => Promise.resolve(new PassThrough()),
    start: () => Promise.resolve(),
    wait: () => Promise.resolve({ StatusCode: 137 }),
    inspect: () => {
      const state = states[Math.min(inspections, states.length - 1)];
      inspections += 1;
      return Promise.resolve({ State: state });
    },
    remove: () => Promise.resolve(),
  };
  const docker = {
    createContainer: () => Promise.resolve(container),
    getContainer: () => container,
    modem: { demuxStream: () => undefined },
  } as unknown as Dockerode;
  return { docker, inspections: () => inspections };
}

async function start(docker: Dockerode) {
  return startSandboxContainer(docker, { name: 'toolexec-test', Image: 'x' }, { track: () => undefined });
}

describe('sandbox container: oomKilled', () => {
  it('an OOM flag that lands after the SIGKILL exit is still seen', async () => {
    const { docker, inspections } = fakeDocker([
      { OOMKilled: false, ExitCode: 137 },
      { OOMKilled: false, ExitCode: 137 },
      { OOMKilled: true, ExitCode: 137 },
    ]);
    const sandbox = await start(docker);
    expect(await sandbox.oomKilled()).toBe(true);
    expect(inspections()).toBe(3);
  });

  it('a SIGKILL exit without an OOM flag is given up on after a bounded wait', async () => {
    const { docker, inspections } = fakeDocker([{ OOMKilled: false, ExitCode: 137 }]);
    const sandbox = await start(docker);
    const started = performance.now();
    expect(await sandbox.oomKilled()).toBe(false);
    expect(inspections()).toBe(11);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('any other exit, or a container the backend killed, is answered from one inspect', async () => {
    const other = fakeDocker([{ OOMKilled: false, ExitCode: 1 }]);
    expect(await (await start(other.docker)).oomKilled()).toBe(false);
    expect(other.inspections()).toBe(1);
    const ours = fakeDocker([{ OOMKilled: false, ExitCode: 137 }]);
    const sandbox = await start(ours.docker);
    sandbox.kill();
    expect(await sandbox.oomKilled()).toBe(false);
    expect(ours.inspections()).toBe(1);
  });
});
