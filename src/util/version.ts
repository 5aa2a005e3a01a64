/** Quarry's own version: the one its package.json names, wherever the package is installed. */
import { readFileSync } from 'node:fs';

export function quarryVersion(): string {
  // dist/util/version.js and src/util/version.ts both sit two folders below the package's root.
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
