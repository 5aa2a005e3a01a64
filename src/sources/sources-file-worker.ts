/** A worker thread that reads and checks a sources file (sources-file-reader.ts says why in a thread). */
import { parentPort, workerData } from 'node:worker_threads';
import { readSourcesFile } from './sources-file.js';

try {
  parentPort!.postMessage({ read: readSourcesFile((workerData as { file: string }).file) });
} catch (error) {
  parentPort!.postMessage({
    error: (error as Error).message,
    refused: (error as Error).name === 'SourcesFileError',
  });
}
