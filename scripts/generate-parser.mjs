/**
 * Writes src/querystring/parser.generated.ts from query-string.peggy (`npm run grammar`). The parser is
 * generated once here, not by every serving process at start (Peggy's compiler took a tenth of a start), and
 * Peggy is needed only to develop Quarry. test/querystring.test.ts fails while the file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import peggy from 'peggy';

export const GRAMMAR = fileURLToPath(new URL('../src/querystring/query-string.peggy', import.meta.url));
export const GENERATED = fileURLToPath(new URL('../src/querystring/parser.generated.ts', import.meta.url));

/** The text of parser.generated.ts for the grammar as it is now. */
export function parserSource() {
  const source = peggy.generate(readFileSync(GRAMMAR, 'utf8'), { output: 'source', format: 'es' });
  return (
    '// @ts-nocheck\n' +
    '// Generated from query-string.peggy by `npm run grammar` (scripts/generate-parser.mjs); do not edit.\n' +
    source
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GENERATED, parserSource());
  process.stdout.write(`wrote ${GENERATED}\n`);
}
