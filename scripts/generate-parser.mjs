/**
 * Writes the generated parsers from their grammars (`npm run grammar`): src/querystring/parser.generated.ts from
 * query-string.peggy (the v4 query language) and src/optimade/filter-parser.generated.ts from filter.peggy (the
 * OPTIMADE filter language). A parser is generated once here, not by every serving process at start (Peggy's
 * compiler took a tenth of a start), and Peggy is needed only to develop Quarry. test/querystring.test.ts and
 * test/optimade-filter.test.ts fail while a file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { basename } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import peggy from 'peggy';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export const GRAMMAR = here('../src/querystring/query-string.peggy');
export const GENERATED = here('../src/querystring/parser.generated.ts');
export const FILTER_GRAMMAR = here('../src/optimade/filter.peggy');
export const FILTER_GENERATED = here('../src/optimade/filter-parser.generated.ts');

/** The text of a generated parser for `grammar` as it is now (default: the v4 query string's). */
export function parserSource(grammar = GRAMMAR) {
  const source = peggy.generate(readFileSync(grammar, 'utf8'), { output: 'source', format: 'es' });
  return (
    '// @ts-nocheck\n' +
    `// Generated from ${basename(grammar)} by \`npm run grammar\` (scripts/generate-parser.mjs); do not edit.\n` +
    source
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [grammar, generated] of [
    [GRAMMAR, GENERATED],
    [FILTER_GRAMMAR, FILTER_GENERATED],
  ]) {
    writeFileSync(generated, parserSource(grammar));
    process.stdout.write(`wrote ${generated}\n`);
  }
}
