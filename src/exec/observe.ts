/**
 * The facade's share of observability: its telemetry configuration (redaction paths and event
 * sink, from `redact`, `onEvent` and `logger`), server status as events, and chains with their
 * step records redacted.
 *
 * @internal
 * @module
 */
import { Redactor } from '../model/internal.js';
import type { Step } from './types.js';
import { EventSink, eventError, type Telemetry, type TelemetryConfig } from '../run/internal.js';
import type { ExecChainResult, ExecOptions, ExecStepResult, ServerStatus } from './types.js';

/** The telemetry configuration of one facade. */
export function execTelemetryConfig(
  redact: readonly string[],
  onEvent: ExecOptions['onEvent'],
  logger: ExecOptions['logger'],
): TelemetryConfig {
  return { redactor: new Redactor(redact), sink: new EventSink(onEvent, logger) };
}

/** A server's status change as a `server.status` event. */
export function serverStatusEvent(telemetry: Telemetry, server: string, status: ServerStatus): void {
  const { state, toolCount } = status;
  if (status.error === undefined) {
    telemetry.emit({ type: 'server.status', time: Date.now(), server, state, toolCount });
    return;
  }
  telemetry.emit({ type: 'server.status', time: Date.now(), server, state, toolCount, error: eventError(status.error) });
}

/**
 * A facade chain under the telemetry's `run_chain` span, its step records (`args`) redacted with
 * `redactions` on each record that lost something — in the result and in a failure's `execSteps`.
 */
export async function observedChain(telemetry: Telemetry, steps: Step[], run: () => Promise<ExecChainResult>): Promise<ExecChainResult> {
  try {
    const result = await telemetry.chain(steps, run);
    return { ...result, steps: redactRecords(telemetry, result.steps) };
  } catch (err) {
    const records = (err as { execSteps?: unknown } | null)?.execSteps;
    if (Array.isArray(records)) {
      Object.defineProperty(err, 'execSteps', { value: redactRecords(telemetry, records as ExecStepResult[]), configurable: true });
    }
    throw err;
  }
}

function redactRecords(telemetry: Telemetry, records: ExecStepResult[]): ExecStepResult[] {
  return records.map((record) => {
    if (record.args === undefined || record.args === null || typeof record.args !== 'object') return record;
    const redacted = telemetry.redactArgs(record.toolId, record.args);
    if (redacted.redactions.length === 0) return record;
    return { ...record, args: redacted.value, redactions: redacted.redactions };
  });
}
