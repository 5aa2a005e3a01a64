// Run at install (`npm install`, `npm ci`, and when the package is installed as a dependency): builds the
// SQLite extensions of native/ against the SQLite headers better-sqlite3 ships: statement-deadline.c (stops a
// statement run in the serving thread at its time), http-date.c (dates of records SQLite writes as JSON) and
// memory-trim.c (a quiet process gives its freed heap memory back).
// Without them (no C compiler, not Linux) Quarry works as before: statements of unknown cost run in query
// processes only, and posted queries' records are written in JavaScript. So a failure here warns and does not
// fail the install.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const EXTENSIONS = [
  {
    name: 'statement-deadline',
    // -z nodelete: the watcher thread runs this library's code for as long as the process lives.
    args: ['-Wl,-z,nodelete'],
    libraries: ['-lpthread'],
    without: 'statements of unknown cost will run in query processes only',
  },
  {
    name: 'http-date',
    args: [],
    libraries: [],
    without: "posted queries' records will be written in JavaScript",
  },
  {
    name: 'memory-trim',
    args: [],
    libraries: [],
    without: 'a quiet process keeps the heap memory its last load freed',
  },
];

function headers() {
  try {
    return join(
      dirname(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json')),
      'deps',
      'sqlite3',
    );
  } catch {
    return undefined;
  }
}

function build(extension, include) {
  if (process.platform !== 'linux') return 'only Linux is supported';
  if (include === undefined) return 'better-sqlite3 is not installed';
  const output = join(root, 'build', `${extension.name}.so`);
  mkdirSync(dirname(output), { recursive: true });
  const partial = `${output}.${process.pid}`;
  const compiler = process.env.CC || 'cc';
  const args = ['-O2', '-fPIC', '-shared', '-I', include, ...extension.args, '-o', partial];
  try {
    execFileSync(compiler, [...args, join(root, 'native', `${extension.name}.c`), ...extension.libraries], {
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

const include = headers();
for (const extension of EXTENSIONS) {
  const problem = build(extension, include);
  if (problem !== undefined) {
    process.stderr.write(
      `quarry: the ${extension.name} extension was not built (${problem}); ${extension.without}\n`,
    );
  }
}
