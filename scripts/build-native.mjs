// Run at install (`npm install`, `npm ci`, and when the package is installed as a dependency): builds the
// SQLite extension native/statement-deadline.c against the SQLite headers better-sqlite3 ships. Without it (no C
// compiler, not Linux) Quarry works as before and runs every statement of unknown cost in a query process;
// so a failure here warns and does not fail the install.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const output = join(root, 'build', 'statement-deadline.so');

function build() {
  if (process.platform !== 'linux') return 'only Linux is supported';
  let headers;
  try {
    headers = join(
      dirname(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json')),
      'deps',
      'sqlite3',
    );
  } catch {
    return 'better-sqlite3 is not installed';
  }
  mkdirSync(dirname(output), { recursive: true });
  const partial = `${output}.${process.pid}`;
  const compiler = process.env.CC || 'cc';
  // -z nodelete: the watcher thread runs this library's code for as long as the process lives.
  const args = ['-O2', '-fPIC', '-shared', '-I', headers, '-Wl,-z,nodelete', '-o', partial];
  try {
    execFileSync(compiler, [...args, join(root, 'native', 'statement-deadline.c'), '-lpthread'], {
      stdio: 'pipe',
    });
  } catch (error) {
    rmSync(partial, { force: true });
    const said =
      String(error.stderr ?? '')
        .trim()
        .split('\n')[0] || error.message;
    return `${compiler} failed: ${said}`;
  }
  renameSync(partial, output);
  return undefined;
}

const problem = build();
if (problem !== undefined) {
  process.stderr.write(
    `quarry: the statement deadline extension was not built (${problem}); statements of unknown cost ` +
      'will run in query processes only\n',
  );
}
