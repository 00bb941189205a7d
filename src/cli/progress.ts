/**
 * Progress of one `run`: a bar on a terminal's stderr (cli-progress), drawn from the progress
 * notifications the tool sends; one line per report with `--verbose` when stderr is not a
 * terminal; nothing otherwise.
 */
import { SingleBar } from 'cli-progress';
import type { ProgressEvent } from '../run/index.js';
import { writeLine, type CliOutput } from './io.js';

/** Receives the call's progress (`onProgress`) and ends the display when the call settles. */
export interface ProgressDisplay {
  /** The `onProgress` listener of the call. */
  readonly onProgress: (progress: ProgressEvent) => void;
  /** Draws the final state (full on success) and leaves the terminal as it was. Idempotent. */
  finish(ok: boolean): void;
}

/** The runner's own reports around the tool's (`started` first, `completed` / `error` last): not drawn. */
function isRunnerMarker(progress: ProgressEvent): boolean {
  return progress.total === 1 && (progress.message === 'started' || progress.message === 'completed' || progress.message === 'error');
}

function messageOf(progress: ProgressEvent): string {
  return progress.message ?? '';
}

/** A cli-progress bar on `stream`, started by the tool's first report. */
class BarDisplay implements ProgressDisplay {
  readonly #bar: SingleBar;
  #started = false;
  #finished = false;
  #total = 0;

  constructor(stream: CliOutput, label: string) {
    this.#bar = new SingleBar({
      stream,
      format: `${label} {bar} {percentage}% | {value}/{total} {message}`,
      barCompleteChar: '\u2588',
      barIncompleteChar: '\u2591',
      hideCursor: true,
      clearOnComplete: false,
      barsize: 30,
    });
  }

  readonly onProgress = (progress: ProgressEvent): void => {
    if (this.#finished || isRunnerMarker(progress)) return;
    // A report without a total grows the bar's end with it.
    this.#total = Math.max(progress.total ?? progress.progress, progress.progress, 1);
    const payload = { message: messageOf(progress) };
    if (!this.#started) {
      this.#started = true;
      this.#bar.start(this.#total, progress.progress, payload);
      return;
    }
    this.#bar.setTotal(this.#total);
    this.#bar.update(progress.progress, payload);
  };

  finish(ok: boolean): void {
    if (this.#finished) return;
    this.#finished = true;
    if (!this.#started) return;
    if (ok) this.#bar.update(this.#total, { message: 'done' });
    this.#bar.stop();
  }
}

/** One stderr line per tool report. */
function lineDisplay(stream: CliOutput, label: string): ProgressDisplay {
  return {
    onProgress: (progress: ProgressEvent): void => {
      if (isRunnerMarker(progress)) return;
      const total = progress.total === undefined ? '' : `/${progress.total}`;
      writeLine(stream, `toolexec: ${label} progress ${progress.progress}${total} ${messageOf(progress)}`.trimEnd());
    },
    finish(): void {},
  };
}

/**
 * The display for a call of `label`: a bar when `stream` is a terminal and `enabled`, lines with
 * `verbose` otherwise, or none (`undefined`: the call then asks for no progress at all).
 */
export function progressDisplay(
  stream: CliOutput,
  label: string,
  options: { enabled: boolean; verbose: boolean },
): ProgressDisplay | undefined {
  if (!options.enabled) return undefined;
  if (stream.isTTY === true) return new BarDisplay(stream, label);
  return options.verbose ? lineDisplay(stream, label) : undefined;
}
