/** `quarry serve`: open the storages, start the HTTP server, stop cleanly on a signal. */
import { buildApp } from '../http/app.js';
import { ensureDemoArchive } from '../generate/index.js';
import { defaultCacheDir } from '../storage/cache-dir.js';
import { openArchive } from '../storage/index.js';
import { StorageOpenError, type StorageBackend } from '../storage/types.js';
import { CliError } from './errors.js';

export interface ServeOptions {
  host: string;
  hostname?: string;
  port: number;
  prefix: string;
  posting: boolean;
  cacheDir?: string;
  log?: boolean;
  workers?: number;
  queryTimeout?: number;
  maxBody?: number;
  maxVertices?: number;
  maxInList?: number;
}

export async function runServe(files: string[], options: ServeOptions) {
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  if (files.length === 0) {
    process.stderr.write('quarry: no archive given; serving the demo archive (generated on first run)\n');
    files = [await ensureDemoArchive(cacheDir)];
  }
  const backends: StorageBackend[] = [];
  try {
    const storage = {
      cacheDir,
      workers: options.workers,
      queryTimeoutMs: (options.queryTimeout ?? 30) * 1000,
    };
    for (const file of files) backends.push(await openArchive(file, storage));
  } catch (error) {
    await Promise.all(backends.map((b) => b.close()));
    if (error instanceof StorageOpenError) throw new CliError(error.message);
    throw error;
  }
  const app = await buildApp({
    backends,
    prefix: options.prefix,
    posting: options.posting,
    logger: options.log,
  });
  const host = options.hostname ?? options.host;
  try {
    await app.listen({ host, port: options.port });
  } catch (error) {
    throw new CliError(`cannot listen on ${host}:${options.port}: ${(error as Error).message}`);
  }
  const shown = host.includes(':') ? `[${host}]` : host;
  process.stderr.write(
    `quarry: serving ${backends.map((b) => b.name).join(', ')} at http://${shown}:${options.port}${options.prefix}/\n`,
  );
  const stop = async () => {
    await app.close();
    await Promise.all(backends.map((b) => b.close()));
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
