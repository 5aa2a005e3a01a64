/**
 * Progress of long steps (extracting an archive's database, generating an archive): a bar on a terminal (done
 * of total, rate, time left), a few plain lines otherwise (CI logs, systemd's journal), where a bar's redraws
 * would be hundreds of lines. A step that ends within `showAfterMs` shows nothing: most starts reuse an
 * extracted copy, and their output stays the one serving line.
 */
import { SingleBar } from 'cli-progress';
import type { ProgressCallback } from '../storage/observe.js';

export type ProgressUnit = 'bytes' | 'nodes' | 'archives';

export interface ProgressOptions {
  /** Where it is drawn (default stderr, whose TTY-ness chooses bar or lines). */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Bar or lines; default: a bar when the stream is a terminal. */
  tty?: boolean;
  /** Nothing is shown before this much time has passed (default 2 s). */
  showAfterMs?: number;
  /** In plain mode, a line at each tenth of the work, or after this long without one (default 10 s). */
  lineEveryMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

export interface ProgressDisplay {
  update(done: number, total: number): void;
  /** Name what happens now (a step without a count: "adding indexes"). */
  step(text: string): void;
  /** The work is over; says how long it took when anything was shown. */
  stop(): void;
}

export function progressDisplay(
  label: string,
  unit: ProgressUnit,
  options: ProgressOptions = {},
): ProgressDisplay {
  const stream = options.stream ?? process.stderr;
  const tty = options.tty ?? stream.isTTY === true;
  const now = options.now ?? (() => Date.now());
  const showAfterMs = options.showAfterMs ?? 2_000;
  const lineEveryMs = options.lineEveryMs ?? 10_000;
  const started = now();
  let shown = false;
  let bar: SingleBar | undefined;
  let lastTenth = -1;
  let lastLine = 0;
  let done = 0;
  let total = 0;
  let stepText = '';

  const figures = () => {
    const seconds = Math.max(0.001, (now() - started) / 1000);
    const rate = done / seconds;
    const left = rate > 0 && total > done ? (total - done) / rate : undefined;
    return {
      percent: total > 0 ? Math.floor((100 * done) / total) : 0,
      amount: `${amountOf(done, unit)}/${amountOf(total, unit)}`,
      rate: `${amountOf(rate, unit)}/s`,
      left: left === undefined ? '' : `about ${durationOf(left)} left`,
    };
  };

  const line = (text: string) => {
    lastLine = now();
    stream.write(`quarry: ${label}: ${text}\n`);
  };

  const draw = () => {
    const f = figures();
    if (tty) {
      const payload = { amount: f.amount, rate: f.rate, left: f.left, step: stepText };
      if (bar === undefined) {
        bar = new SingleBar({
          stream: stream as NodeJS.WriteStream,
          format: `${label} [{bar}] {percentage}% | {amount} | {rate} | {left}{step}`,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 50,
        });
        bar.start(Math.max(1, total), done, payload);
      } else {
        bar.setTotal(Math.max(1, total));
        bar.update(done, payload);
      }
      return;
    }
    const tenth = Math.floor(f.percent / 10);
    if (tenth > lastTenth || now() - lastLine >= lineEveryMs) {
      lastTenth = tenth;
      line(`${f.percent}% (${f.amount}, ${f.rate}${f.left ? `, ${f.left}` : ''})`);
    }
  };

  const due = () => shown || (shown = now() - started >= showAfterMs);

  return {
    update(doneNow, totalNow) {
      done = doneNow;
      total = totalNow;
      if (due()) draw();
    },
    step(text) {
      stepText = ` | ${text}`;
      if (!due()) return;
      if (tty) draw();
      else line(text);
    },
    stop() {
      if (bar !== undefined) bar.stop();
      if (shown) line(`done in ${durationOf((now() - started) / 1000)}`);
    },
  };
}

/** The progress of extracting `file`'s database, drawn as its steps come (src/storage/archive/extract.ts). */
export function extractionProgress(file: string, options?: ProgressOptions): ProgressCallback {
  const display = progressDisplay(`extracting the database of ${file}`, 'bytes', options);
  return (step, done, total) => {
    // 'unpack' (a tar.gz), 'copy' (data.json read), 'files' and 'convert': an AiiDA 1.x archive's conversion.
    if (step === 'copy' || step === 'unpack') display.update(done, total);
    else if (step === 'files' && done === 0) display.step('hashing the repository files');
    else if (step === 'convert' && done === 0) display.step('converting the records');
    else if (step === 'index' && done === 0) display.step('adding indexes');
    else if (step === 'summaries' && done === 0) display.step('computing the node summaries');
    else if (step === 'summaries') display.stop();
  };
}

function amountOf(value: number, unit: ProgressUnit): string {
  if (unit !== 'bytes') return String(Math.round(value));
  return `${(value / 1e6).toFixed(value < 1e7 ? 1 : 0)} MB`;
}

function durationOf(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - 60 * minutes)} s`;
}
