/** The line that says what is served where. */
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
  if (options.ui !== false && options.prefix.replace(/\/+$/, '') !== '') {
    const page = options.publicUrl === undefined ? `http://${shown}:${port}/` : `${options.publicUrl}/`;
    process.stderr.write(`quarry: explorer at ${page}\n`);
  }
}

/** A portal's thousand names are not one line: the first few and how many in all. */
function shownNames(names: string[]): string {
  if (names.length <= 5) return names.join(', ') || 'no source yet';
  return `${names.length} sources (${names.slice(0, 3).join(', ')}, ...; GET /sources/ lists them)`;
}
