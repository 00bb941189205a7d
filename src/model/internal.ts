/**
 * What the model layer shares with the layers above it but not with users: imported by other
 * layers as `../model/internal.js`, never listed in package.json `exports`.
 *
 * @internal
 * @module
 */
export { layerErrors, modelErrors, type LayerErrors } from './error-factory.js';
export { MAX_QUOTED_CHARS, capText } from './errors.js';
export {
  ABORTED,
  DEFAULT_TIMEOUT_MS,
  Deadline,
  MAX_TIMER_MS,
  budgetMs,
  deadlineAfter,
  linkedSignal,
  noop,
  timerDelayMs,
} from './deadline.js';
export { abortError, abortOutcome, isTimeoutReason, type AbortOutcome } from './abort-outcome.js';
export { onAbort } from './abort-fanout.js';
export { editDistance, typoBudget } from './edit-distance.js';
export { LruCache } from './lru-cache.js';
export { compileToolSchema } from './schema-validator.js';
export { defaultExport, importPeer, missingPeerMessage, optionalPeer } from './optional-peer.js';
export { CIRCULAR, TRUNCATED, toJsonSafe, type JsonSafeOptions } from './json-safe.js';
export { reachableObjects } from './reachable.js';
export { callListener, warnListenerFailure } from './listeners.js';
export {
  DEFAULT_REDACT_PATHS,
  REDACTED,
  Redactor,
  TOOL_REDACT_META_KEY,
  redactErrorDetails,
  scrubError,
  scrubText,
  scrubValue,
  toolRedactPaths,
  type Redacted,
} from './redaction.js';
export {
  asLibraryError,
  describeValue,
  guardCall,
  readDeadline,
  readField,
  readFunction,
  readOptionsObject,
  readLimit,
  readShortString,
  readSignal,
  readString,
  readTimeoutMs,
  rejectOnThrow,
  textOf,
} from './options-reader.js';
export { VIOLATION_CODES } from './contract-violation.js';
