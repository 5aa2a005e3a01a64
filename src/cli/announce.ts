/** The lines that say what is served where. */
import { defaultCacheDir } from '../storage/cache-dir.js';
import type { ServeOptions } from './serve.js';

export function announce(names: string[], options: ServeOptions, port: number, processes: number) {
  const host = options.hostname ?? options.host;
  const shown = host.includes(':') ? `[${host}]` : host;
  const on = processes > 1 ? ` (${processes} processes)` : '';
  const published =
    options.publicUrl === undefined ? '' : `, published as ${options.publicUrl}${options.prefix}/`;
  process.stderr.write(
    `quarry: serving ${shownNames(names)} at http://${shown}:${port}${options.prefix}/${on}${published}\n`,
  );
  // The API's prefix is `/` (empty): the API keeps every path and no explorer is served (src/ops/ui.ts).
  const root = options.publicUrl === undefined ? `http://${shown}:${port}` : options.publicUrl;
  if (options.ui !== false && options.prefix.replace(/\/+$/, '') !== '') {
    process.stderr.write(`quarry: explorer at ${root}/\n`);
  }
  process.stderr.write(
    `quarry: API documentation at ${root}/docs, OPTIMADE at ${root}/optimade/v1, health at ${root}/healthz\n`,
  );
  process.stderr.write(`quarry: cache folder ${options.cacheDir ?? defaultCacheDir()}\n`);
}

/** A portal's thousand names are not one line: the first few and how many in all. */
function shownNames(names: string[]): string {
  if (names.length <= 5) return names.join(', ') || 'no source yet';
  return `${names.length} sources (${names.slice(0, 3).join(', ')}, ...; GET /sources/ lists them)`;
}

/** What a database server's change means for reads: "the others" only where others still answer. */
export function serverChangeLine(server: string, up: boolean, problem?: string, upNow = 0): string {
  if (up) return `quarry: database server ${server} answers again; reads go to it\n`;
  return upNow > 0
    ? `quarry: database server ${server} is out (${problem}); reads go to the others\n`
    : `quarry: database server ${server} is out (${problem}); its requests answer 503 until it is back\n`;
}
