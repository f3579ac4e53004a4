import type { JsonValue } from '../platform/state/state-store.js';
import type { RunEvent } from '../runs/events/run-event.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { humanOutput, summaryLine } from './run-output.js';

/** Where `svc run --stream` writes: the model's text as it comes, and one line per step taken. */
export interface ProgressSinks {
  text(chunk: string): void;
  progress(line: string): void;
}

/** Arguments and results are cut to this in progress lines: a line says what, not everything. */
const CLIP = 200;

const str = (value: JsonValue | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;
const num = (value: JsonValue | undefined): number | undefined =>
  typeof value === 'number' ? value : undefined;

function clip(value: JsonValue | undefined): string {
  const text = (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).replace(
    /\s+/g,
    ' ',
  );
  return text.length > CLIP ? `${text.slice(0, CLIP - 1)}…` : text;
}

/**
 * Renders a run's events for a terminal: text deltas as they arrive (a newline where a turn's
 * text ends), tool calls, steps, approvals, takeovers and cancellation as progress lines.
 * Events inside a graph step name it, so parallel steps stay readable.
 */
export class RunProgress {
  /** Text was written without its line's end yet. */
  private lineOpen = false;
  /** The step and turn whose text is being written. */
  private writing?: string;
  /** The run's latest turn outside any step that streamed text, and that text so far. */
  private textTurn?: number;
  private turnText = '';

  constructor(private readonly sinks: ProgressSinks) {}

  show(event: RunEvent): void {
    const data = event.data;
    const step = str(data.step);
    const prefix = step === undefined ? '' : `[${step}] `;
    switch (event.type) {
      case 'model.delta':
        if (typeof data.text === 'string') this.delta(data.text, step, num(data.turn) ?? 0);
        return;
      case 'tool.started':
        return this.line(`${prefix}→ tool ${str(data.name)} ${clip(data.arguments ?? {})}`);
      case 'tool.finished': {
        const took = `${num(data.duration_ms) ?? '?'} ms`;
        return this.line(
          data.is_error === true
            ? `${prefix}← ${str(data.name)} error ${took}: ${clip(data.result)}`
            : `${prefix}← ${str(data.name)} ${took}`,
        );
      }
      case 'step.started': {
        const attempt = num(data.attempt) ?? 1;
        const kind = str(data.kind);
        const details = [kind, attempt > 1 ? `attempt ${attempt}` : undefined].filter(Boolean);
        return this.line(`▸ step ${step}${details.length > 0 ? ` (${details.join(', ')})` : ''}`);
      }
      case 'step.finished': {
        const error = data.error === undefined ? '' : `: ${clip(data.error)}`;
        return this.line(`▪ step ${step} ${str(data.status)}${error}`);
      }
      case 'approval.requested':
        return this.line(`‖ ${str(data.node)} waits for approval`);
      case 'approval.decided':
        return this.line(`‖ ${str(data.node)} ${str(data.decision)} by ${str(data.by)}`);
      case 'run.taken_over':
        return this.line('↻ another replica took the run over; it goes on there');
      case 'run.cancel_requested':
        return this.line(`✕ cancel requested by ${str(data.by)}`);
      default:
        // started, resumed, progressed, paused, settled: the text of a turn is over.
        this.end();
    }
  }

  /**
   * What ends the output of a run that ended: the usual output, less the reply when the
   * streamed text already spelled it (then the output reads as an unstreamed run's does).
   */
  finish(record: RunRecord): string {
    this.end();
    const spelled = record.status !== 'paused' && this.turnText !== '';
    return spelled && this.turnText === record.text
      ? `\n${summaryLine(record)}`
      : humanOutput(record);
  }

  private delta(text: string, step: string | undefined, turn: number): void {
    const key = `${step ?? ''}\u0000${turn}`;
    if (this.writing !== key) {
      this.end();
      this.writing = key;
      if (step !== undefined) this.write(`[${step}] `);
    }
    if (step === undefined) {
      if (this.textTurn !== turn) this.turnText = '';
      this.textTurn = turn;
      this.turnText += text;
    }
    this.write(text);
  }

  private write(text: string): void {
    if (text === '') return;
    this.sinks.text(text);
    this.lineOpen = !text.endsWith('\n');
  }

  /** Ends the line of text being written, if any. */
  end(): void {
    if (this.lineOpen) this.sinks.text('\n');
    this.lineOpen = false;
    this.writing = undefined;
  }

  private line(text: string): void {
    this.end();
    this.sinks.progress(`${text}\n`);
  }
}
