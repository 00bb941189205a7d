import type Dockerode from 'dockerode';
import { expect, test } from 'vitest';
import type { DockerodeInstance, DockerodeOptions } from '../../../../src/runtime/backends/docker/index.js';

// The public option types name no dockerode type (an app without the optional peer still
// type-checks), yet what a dockerode user has in hand fits them, both ways: each function below
// only compiles if its parameter is assignable to its result.
const instanceFits = (docker: Dockerode): DockerodeInstance => docker;
const optionsFit = (options: Dockerode.DockerOptions): DockerodeOptions => options;
const optionsFitBack = (options: DockerodeOptions): Dockerode.DockerOptions => options;

test('a dockerode instance and its DockerOptions fit the public option types, both ways', () => {
  expect([instanceFits, optionsFit, optionsFitBack].every((fit) => typeof fit === 'function')).toBe(true);
});
