/**
 * PNG renders of figures in worker threads: rasterising a plot at 300 dpi takes a core for a good part of a
 * second, which on the serving thread would stall every other request. A few workers at most (half the cores:
 * the rest serve the API and run its queries), a queue bounded by time like the queries' (a render that could
 * not start before its request's deadline is refused at once with Retry-After), and a render past the
 * deadline ends with its worker. Each worker loads the renderer and finds its font once, not per render.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { QueryTimeoutError, ServerBusyError } from '../../storage/types.js';

/**
 * The worker's program (CommonJS, evaluated, so that it needs no file beside the compiled code and runs the
 * same under the test runner).
 */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Resvg } = require(workerData.resvg);
const font = workerData.fontFiles.length > 0
  ? { loadSystemFonts: false, fontFiles: workerData.fontFiles, defaultFontFamily: 'DejaVu Sans' }
  : { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' };
parentPort.on('message', ({ svg, width }) => {
  try {
    const png = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font }).render().asPng();
    parentPort.postMessage({ png });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  }
});
`;

const RESVG = createRequire(import.meta.url).resolve('@resvg/resvg-js');

/** The figures' font family, as files: loading every system font for each render cost more than drawing. */
const FONT_NAMES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'];
const FONT_DIRS = ['/usr/share/fonts', '/usr/local/share/fonts', join(homedir(), '.local/share/fonts')];

let fontFiles: string[] | undefined;

/** The font files of the figures' family, found once (none: the renderer falls back to the system's fonts). */
export function figureFonts(): string[] {
  if (fontFiles !== undefined) return fontFiles;
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (FONT_NAMES.includes(name)) found.push(path);
      else if (depth < 4 && !name.includes('.') && statSync(path, { throwIfNoEntry: false })?.isDirectory())
        visit(path, depth + 1);
    }
  };
  for (const dir of FONT_DIRS) if (existsSync(dir)) visit(dir, 0);
  return (fontFiles = found);
}

interface Job {
  svg: string;
  width: number;
  deadline: number;
  resolve: (png: Buffer) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker?: Worker;
  job?: Job;
}

/** Weight of the latest render in the expected time of one. */
const LATEST_WEIGHT = 0.3;

export class PngWorkers {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  /** Expected milliseconds of one render, from the last ones. */
  private expectedMs = 300;
  /** Renders done, and the most that ran at once (for tests). */
  readonly stats = { renders: 0, mostAtOnce: 0 };

  constructor(size = Math.max(1, Math.floor(availableParallelism() / 2))) {
    this.slots = Array.from({ length: Math.max(1, size) }, () => ({}));
  }

  get size(): number {
    return this.slots.length;
  }

  /** The SVG rendered as a PNG `width` pixels wide, by a worker, before `deadline` (ms since the epoch). */
  render(svg: string, width: number, deadline: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const job: Job = { svg, width, deadline, resolve, reject };
      const idle = this.slots.find((s) => s.job === undefined);
      if (idle) return this.start(idle, job);
      const left = deadline - Date.now();
      const ahead = ((this.queue.length + 1) * this.expectedMs) / this.slots.length;
      if (ahead > left) {
        const retryAfter = Math.max(1, Math.min(30, Math.ceil(ahead / 1000)));
        return reject(
          new ServerBusyError(
            `this server is busy drawing plots: ${this.queue.length} wait, about ${(ahead / 1000).toFixed(1)} s ` +
              `of work, more than the time left to this request; try again in ${retryAfter} s`,
            retryAfter,
          ),
        );
      }
      job.timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(job), 1);
        reject(new QueryTimeoutError('the server was busy drawing other plots for the whole time limit'));
      }, left);
      this.queue.push(job);
    });
  }

  private start(slot: Slot, job: Job) {
    clearTimeout(job.timer);
    const left = job.deadline - Date.now();
    if (left <= 0) {
      job.reject(new QueryTimeoutError('the plot could not be drawn within the time limit'));
      return this.next(slot);
    }
    slot.job = job;
    const worker = (slot.worker ??= this.spawn(slot));
    worker.ref();
    const busy = this.slots.filter((s) => s.job !== undefined).length;
    this.stats.mostAtOnce = Math.max(this.stats.mostAtOnce, busy);
    const started = performance.now();
    // A render past the deadline ends with its worker: a native render cannot be interrupted otherwise.
    job.timer = setTimeout(() => {
      this.finish(slot, job);
      slot.worker = undefined;
      void worker.terminate();
      job.reject(new QueryTimeoutError('drawing the plot took longer than the time limit and was stopped'));
    }, left);
    worker.once('message', (answer: { png?: Uint8Array; error?: string }) => {
      if (slot.job !== job) return;
      this.expectedMs += LATEST_WEIGHT * (performance.now() - started - this.expectedMs);
      this.stats.renders++;
      this.finish(slot, job);
      if (answer.png)
        job.resolve(Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength));
      else job.reject(new Error(`the plot could not be drawn: ${answer.error}`));
    });
    worker.postMessage({ svg: job.svg, width: job.width });
  }

  private finish(slot: Slot, job: Job) {
    clearTimeout(job.timer);
    slot.job = undefined;
    slot.worker?.unref();
    this.next(slot);
  }

  private next(slot: Slot) {
    const job = this.queue.shift();
    if (job) this.start(slot, job);
  }

  private spawn(slot: Slot): Worker {
    const worker = new Worker(SOURCE, { eval: true, workerData: { resvg: RESVG, fontFiles: figureFonts() } });
    worker.unref();
    // A worker that fails (out of memory, a crash of the renderer) fails its render and is replaced at the next.
    const failed = (error: Error) => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      const job = slot.job;
      if (job) {
        this.finish(slot, job);
        job.reject(new Error(`the plot could not be drawn: ${error.message}`));
      }
    };
    worker.on('error', failed);
    worker.on('exit', (code) => failed(new Error(`its worker ended (${code})`)));
    return worker;
  }

  /** End every worker (tests). */
  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker?.terminate()));
  }
}

let shared: PngWorkers | undefined;

/** The process's workers, started at the first PNG asked for. */
export function pngWorkers(): PngWorkers {
  return (shared ??= new PngWorkers());
}
