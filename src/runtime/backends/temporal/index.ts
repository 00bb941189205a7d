/** The `temporal` runtime backend (a stub). */
export {
  DEFAULT_TEMPORAL_HOST_PORT,
  DEFAULT_TEMPORAL_NAMESPACE,
  DEFAULT_TEMPORAL_TASK_QUEUE,
  DEFAULT_TEMPORAL_WORKFLOW_ID_PREFIX,
  TemporalBackend,
  createTemporalBackend,
} from './backend.js';
export type { TemporalBackendOptions } from './backend.js';
