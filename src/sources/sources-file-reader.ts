/**
 * Reading a sources file off the serving thread: a file of hundreds of thousands of entries takes seconds and
 * hundreds of MB to parse and check, and a reload on SIGHUP must not stop requests meanwhile (the sources stay
 * as they were until the new list is whole). The worker has a bounded heap and a time limit: a file that needs
 * more is refused in one line, and the worker's memory goes back when it ends.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { readSourcesFile, SourcesFileError, type SourcesFile } from './sources-file.js';

const WORKER_FILE = fileURLToPath(new URL('./sources-file-worker.js', import.meta.url));

export interface ReadLimits {
  /** The worker's largest JavaScript heap, in MB (default 256: a file of thousands of sources needs a few). */
  memoryMb?: number;
  /** How long the reading may take (default 30 s). */
  timeoutMs?: number;
}

/** The sources `file` names, read in a worker thread (in this thread where Quarry runs from its sources). */
export function loadSourcesFile(file: string, limits: ReadLimits = {}): Promise<SourcesFile> {
  if (!existsSync(WORKER_FILE)) return Promise.resolve().then(() => readSourcesFile(file));
  const memoryMb = limits.memoryMb ?? 256;
  const timeoutMs = limits.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_FILE, {
      workerData: { file },
      // None of the serving process's options (a worker refuses some); a heap of its own, bounded.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new SourcesFileError(
              `the sources file ${file} took longer than ${timeoutMs / 1000} s to read; make it smaller`,
            ),
          ),
        ),
      timeoutMs,
    );
    worker.on('message', (m: { read?: SourcesFile; error?: string; refused?: boolean }) =>
      settle(() =>
        m.read !== undefined
          ? resolve(m.read)
          : reject(
              m.refused === true
                ? new SourcesFileError(m.error ?? 'the sources file cannot be read')
                : new Error(m.error ?? 'the sources file cannot be read'),
            ),
      ),
    );
    worker.on('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          new SourcesFileError(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? `the sources file ${file} needs more than ${memoryMb} MB to read; make it smaller (folder: entries name many archives in one line)`
              : `the sources file ${file} cannot be read: ${error.message.slice(0, 200)}`,
          ),
        ),
      ),
    );
    worker.on('exit', (code) =>
      settle(() =>
        reject(
          new SourcesFileError(
            `the sources file ${file} cannot be read (its reader ended with code ${code})`,
          ),
        ),
      ),
    );
  });
}
