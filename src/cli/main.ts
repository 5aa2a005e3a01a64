#!/usr/bin/env node
/** The `quarry` command. */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_MAX_ROWS } from '../http/context.js';
import { parsePublicUrl } from '../http/origin.js';
import { replicasBySource } from './replicas.js';
import { runServe, type ServeOptions } from './serve.js';
import { CliError } from './errors.js';
import { quarryVersion } from '../util/version.js';
import { LEGACY_VERSIONS as LEGACY_EXPORT_VERSIONS } from '../generate/legacy/versions.js';

function integer(name: string) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    return n;
  };
}

function positive(name: string) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
    return n;
  };
}

function publicUrl(value: string) {
  try {
    return parsePublicUrl(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** `1e6` and `1000000` both work for node counts. */
function count(value: string) {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || !Number.isInteger(n)) {
    throw new InvalidArgumentError('must be a positive whole number such as 10000 or 1e6');
  }
  return n;
}

const program = new Command('quarry')
  .description('Serve AiiDA provenance data over the AiiDA REST API v4')
  .version(quarryVersion(), '-V, --version', "print Quarry's version");

program
  .command('serve')
  .description('serve AiiDA data: archives, live profiles (the generated demo archive when none is given)')
  .argument(
    '[sources...]',
    '.aiida archive files or their https:// URLs (read by range), core.sqlite_dos folders, postgres:// URLs, or folders of archives and core.sqlite_dos folders (searched recursively); each is served at /<name>/api/v4/, the first also at the plain prefix',
  )
  .option(
    '--sources <file>',
    'a YAML file naming the sources to serve (see docs/portal.md); SIGHUP reads it again',
  )
  .option(
    '--max-open <n>',
    'most sources of folders and --sources open at once per serving process (least recently used closed first)',
    integer('max-open'),
    16,
  )
  .option(
    '--max-open-files <n>',
    'most files open sources and OPTIMADE side tables keep open per serving process, least recently used closed first (default: half the open-file limit, at most 2048)',
    integer('max-open-files'),
  )
  .option(
    '--idle-close <seconds>',
    'close a source or side table no request has used for this long, so memory goes back after a load (0: only when room is needed)',
    integer('idle-close'),
    60,
  )
  .option(
    '--watch-interval <seconds>',
    'how often served folders are looked at for added, removed and replaced sources (0: never)',
    integer('watch-interval'),
    5,
  )
  .option(
    '--profile <name...>',
    "AiiDA profiles to serve, from AiiDA's config.json ($AIIDA_PATH or ~/.aiida)",
  )
  .option('--repository <path>', 'the file repository folder of a postgres:// source')
  .option('--pg-pool <n>', 'most PostgreSQL sessions per profile', integer('pg-pool'), 8)
  .option(
    '--replica <url>',
    'a read replica (streaming standby) of the PostgreSQL source before it, as a postgres:// URL; repeatable',
  )
  .option('--replicas-only', 'send reads to the replicas only (the primary answers while none is up)')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('-H, --hostname <host>', 'alias of --host, as in `verdi restapi`')
  .option('-P, --port <port>', 'port to listen on (-P as in `verdi restapi`, or -p)', integer('port'), 5000)
  .addOption(new Option('-p <port>').argParser(integer('port')).hideHelp())
  // Not options of Quarry's, but asked for: each is answered with what to do instead.
  .addOption(new Option('--cors').hideHelp())
  .option('--prefix <prefix>', 'URL prefix of the API', '/api/v4')
  .option('--no-posting', 'turn off POST /querybuilder/')
  .option('--no-ui', 'do not serve the web explorer at /')
  .option('--cache-dir <dir>', 'where extracted databases and the demo archive are kept')
  .option(
    '--processes <n>',
    'HTTP server processes sharing the port',
    integer('processes'),
    availableParallelism(),
  )
  .option('--workers <n>', 'query processes per SQLite source and serving process', integer('workers'), 2)
  .option('--query-timeout <seconds>', "time limit of one request's queries", positive('query-timeout'), 30)
  .option(
    '--max-waiting <n>',
    'queries that may wait for a connection, per source and process, before more are refused with 503',
    integer('max-waiting'),
    256,
  )
  .option(
    '--query-memory <MB>',
    'most memory one SQLite query may use before it is stopped',
    positive('query-memory'),
    1024,
  )
  .option('--max-body <bytes>', 'largest request body accepted', integer('max-body'), 1024 * 1024)
  .option('--max-vertices <n>', 'most vertices in a posted QueryBuilder path', integer('max-vertices'), 12)
  .option(
    '--max-in-list <n>',
    'longest IN list in a posted QueryBuilder filter',
    integer('max-in-list'),
    10000,
  )
  .option(
    '--max-rows <n>',
    'most rows of one posted QueryBuilder answer, and neighbours of a links tree each way',
    integer('max-rows'),
    DEFAULT_MAX_ROWS,
  )
  .option(
    '--max-export-nodes <n>',
    'most nodes of one .aiida export (GET /export/)',
    integer('max-export-nodes'),
    100_000,
  )
  .option(
    '--max-export-bytes <bytes>',
    'most bytes (files and node data) of one .aiida export',
    integer('max-export-bytes'),
    4 * 1024 ** 3,
  )
  .option(
    '--public-url <url>',
    "base URL written into answers (url, url_root, Link) instead of the request's scheme and host, e.g. https://example.org/quarry behind a proxy that strips /quarry",
    publicUrl,
  )
  .option('--trust-proxy', 'take scheme and host of answers from X-Forwarded-Proto and X-Forwarded-Host')
  .option(
    '--cache-max-age <seconds>',
    'how long caches may keep answers from archives (Cache-Control max-age); 0: revalidate every time',
    integer('cache-max-age'),
    300,
  )
  .option(
    '--kept-answers <MiB>',
    'whole answers kept for the machine in a file of the cache folder, shared by all serving processes; 0: none',
    integer('kept-answers'),
    256,
  )
  .option('--no-compression', 'never compress answers (gzip, brotli), e.g. when a proxy in front does')
  .option('--log', 'log every request: one line each, on stdout')
  .addOption(
    new Option(
      '--log-format <format>',
      'request lines as JSON or pretty (default: pretty on a terminal)',
    ).choices(['json', 'pretty']),
  )
  .option('--metrics', 'answer GET /metrics (Prometheus text format)')
  .option(
    '--optimade-default <name>',
    "the source answering the plain /optimade/v1/ and the OPTIMADE index's default (default: the first)",
  )
  .option(
    '--shutdown-timeout <seconds>',
    'on SIGTERM/SIGINT, how long requests under way may take to finish',
    positive('shutdown-timeout'),
    10,
  )
  // Which source each --replica belongs to is a matter of order on the command line, which commander forgets.
  .action((sources: string[], { p, cors, ...options }: ServeOptions & { p?: number; cors?: boolean }) => {
    if (cors)
      throw new CliError(
        'there is no --cors: every answer already carries Access-Control-Allow-Origin: * (docs/api.md)',
      );
    return runServe(sources, {
      ...options,
      port: p ?? options.port,
      replicasOf: replicasBySource(process.argv.slice(2)),
    });
  });

program
  .command('prepare')
  .description('extract the databases of the archives a portal serves ahead, so that it starts warm')
  .argument(
    '[folders...]',
    'folders of .aiida archives (searched recursively), .aiida files, or https:// URLs of archives',
  )
  .option('--sources <file>', 'the YAML sources file of quarry serve --sources')
  .option('--cache-dir <dir>', 'the cache folder quarry serve uses')
  .option('--jobs <n>', 'archives extracted at once (default: the cores)', integer('jobs'))
  .action(async (folders: string[], options: Parameters<typeof import('./prepare.js').runPrepare>[1]) =>
    (await import('./prepare.js')).runPrepare(folders, options),
  );

program
  .command('generate')
  .description('write a synthetic, deterministic AiiDA archive (for demos and benchmarks)')
  .requiredOption('--nodes <n>', 'number of nodes', count)
  .requiredOption('--out <file>', 'archive file to write')
  .option('--seed <n>', 'random seed', integer('seed'), 1)
  .addOption(
    new Option(
      '--export-version <version>',
      'write a legacy archive of this export version (the JSON format of AiiDA 0.x and 1.x) instead of main_0001',
    ).choices(LEGACY_EXPORT_VERSIONS),
  )
  .addOption(
    new Option('--format <kind>', 'container of a legacy archive (--export-version)')
      .choices(['zip', 'tar.gz'])
      .default('zip'),
  )
  // Loaded when used: a serving supervisor needs none of the generator.
  .action(async (options: Parameters<typeof import('./generate.js').runGenerate>[0]) =>
    (await import('./generate.js')).runGenerate(options),
  );

program.addHelpText(
  'after',
  '\n`quarry serve` with no source serves a demo archive (generated on its first run), as `npm start` does.',
);

// A word that is no command: a command misspelt, or a source given without `serve`.
program.on('command:*', ([word]: string[]) => {
  const commands = program.commands.map((c) => c.name());
  const near = commands.find((name) => editDistance(name, word ?? '') <= 2);
  const hint =
    near !== undefined
      ? `did you mean \`quarry ${near}\`?`
      : existsSync(word ?? '') || /[./:]/.test(word ?? '')
        ? `to serve it: quarry serve ${word}`
        : `the commands: ${commands.join(', ')} (quarry --help)`;
  process.stderr.write(`quarry: '${word}' is not a command; ${hint}\n`);
  process.exit(1);
});

/** Levenshtein distance, for the suggestion of a command. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

// `quarry` alone prints what it does (it used to start a server on port 5000, unasked).
if (process.argv.length <= 2) {
  program.outputHelp();
  process.exit(0);
}

program.parseAsync().catch((error: unknown) => {
  if (error instanceof CliError || !process.env.QUARRY_DEBUG) {
    process.stderr.write(`quarry: ${error instanceof Error ? error.message : String(error)}\n`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
