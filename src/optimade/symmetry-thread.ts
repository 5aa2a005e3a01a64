/**
 * moyo run in a thread of its own, one structure at a time, each given a time budget. moyo's cost grows with
 * the cube of a cell's sites where many are alike (a 216-site supercell of one element takes 8 s, 343 sites
 * 30 s, 500 sites at one position minutes), and a WebAssembly call cannot be interrupted where it runs: run in
 * the serving thread it froze the process, `/healthz` and SIGTERM included. Here a call past its budget ends
 * the thread (terminated at once, mid-call), the structure gets no group, and the next call starts a new one.
 *
 * The thread's code is given as a module of its own text (a data: URL): it imports only moyo, so it runs the
 * same from the compiled code and from the TypeScript sources the test runner runs.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The time a structure's analysis may take; past it the structure gets no group. */
export const SYMMETRY_BUDGET_MS = 3_000;
/** The time a new thread may take to compile moyo (a few hundred ms on a loaded machine). */
const START_MS = 30_000;

/** What moyo says of a cell, as the thread sends it. */
export interface RawGroup {
  number: number;
  hermannMauguin: string;
  hall: string;
  operations: { rotation: number[]; translation: number[] }[];
  wyckoffs: string[];
}

const THREAD_CODE = `
import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
const moyo = await import(workerData.moyo);
moyo.initSync({ module: readFileSync(workerData.wasm) });
parentPort.on('message', ({ cell, tolerance }) => {
  let group = null;
  try {
    const g = moyo.analyze_cell(cell, tolerance, 'Standard');
    group = {
      number: g.number,
      hermannMauguin: moyo.space_group_type(g.number).hm_short,
      hall: moyo.hall_symbol_entry(g.hall_number).hall_symbol,
      operations: g.operations.map((o) => ({ rotation: [...o.rotation], translation: [...o.translation] })),
      wyckoffs: [...g.wyckoffs],
    };
  } catch {
    // A cell moyo cannot read, or whose search fails (sites that coincide): no group.
  }
  parentPort.postMessage(group);
});
parentPort.postMessage('ready');
`;

let paths: { moyo: string; wasm: string } | undefined;
function moyoPaths(): { moyo: string; wasm: string } {
  if (paths === undefined) {
    const require = createRequire(import.meta.url);
    paths = {
      moyo: pathToFileURL(require.resolve('@spglib/moyo-wasm')).href,
      wasm: require.resolve('@spglib/moyo-wasm/moyo_wasm_bg.wasm'),
    };
  }
  return paths;
}

interface Running {
  worker: Worker;
  ready: Promise<void>;
  /** The answer awaited now, if any. */
  answer?: (group: RawGroup | null | 'gone') => void;
}

/** One thread running moyo; `analyze` calls are made one after another (each awaited before the next). */
export class SymmetryThread {
  private running?: Running;
  private closed = false;
  /** Calls that ran past their budget (their structures got no group). */
  overran = 0;

  constructor(private readonly budgetMs = SYMMETRY_BUDGET_MS) {}

  /** moyo's group of `cell` (its input JSON) at `tolerance`, or null: none, or not found within the budget. */
  async analyze(cell: string, tolerance: number): Promise<RawGroup | null> {
    if (this.closed) return null;
    const running = this.start();
    await running.ready;
    if (this.running !== running) return null;
    const answer = new Promise<RawGroup | null | 'gone'>((resolve) => (running.answer = resolve));
    running.worker.postMessage({ cell, tolerance });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.budgetMs)));
    const outcome = await Promise.race([answer, late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.overran += 1;
      this.end(running);
      return null;
    }
    return outcome === 'gone' ? null : outcome;
  }

  private start(): Running {
    if (this.running !== undefined) return this.running;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(THREAD_CODE)}`), {
      workerData: moyoPaths(),
      // None of the process's options: a worker refuses some (see side-build.ts), and needs none.
      execArgv: [],
    });
    const running: Running = { worker, ready: Promise.resolve() };
    running.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the symmetry thread did not start')), START_MS);
      worker.once('message', () => {
        clearTimeout(timer);
        worker.on('message', (group: RawGroup | null) => {
          const answer = running.answer;
          running.answer = undefined;
          answer?.(group);
        });
        resolve();
      });
      worker.once('exit', () => {
        clearTimeout(timer);
        reject(new Error('the symmetry thread stopped'));
      });
    });
    worker.on('error', () => this.end(running));
    worker.once('exit', () => {
      if (this.running === running) this.running = undefined;
      running.answer?.('gone');
    });
    this.running = running;
    return running;
  }

  private end(running: Running): void {
    if (this.running === running) this.running = undefined;
    running.answer?.('gone');
    running.answer = undefined;
    void running.worker.terminate();
  }

  /** Ends the thread; a call under way gets null. */
  async close(): Promise<void> {
    this.closed = true;
    const running = this.running;
    if (running === undefined) return;
    this.end(running);
    await running.worker.terminate();
  }
}
