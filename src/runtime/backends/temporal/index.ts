/**
 * The `temporal` backend: a stub that checks its configuration and each request, then fails with
 * `RUNTIME_UNAVAILABLE`.
 *
 * @module toolexec/runtime/temporal
 */
export {
  DEFAULT_TEMPORAL_HOST_PORT,
  DEFAULT_TEMPORAL_NAMESPACE,
  DEFAULT_TEMPORAL_TASK_QUEUE,
  DEFAULT_TEMPORAL_WORKFLOW_ID_PREFIX,
  TemporalBackend,
  createTemporalBackend,
} from './backend.js';
export type { TemporalBackendOptions } from './backend.js';
