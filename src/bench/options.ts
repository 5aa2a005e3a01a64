/** The options of `npm run bench` (main.ts), and how they are read from its command line. */
import { availableParallelism } from 'node:os';
import { Command, Option } from 'commander';

export interface Options {
  nodes: number;
  backend: 'archive' | 'postgres';
  concurrency: string;
  duration: number;
  warmup: number;
  processes: number;
  stealLimit: number;
  tries: number;
  only?: string;
  target?: string;
  metrics?: boolean;
  plans?: string;
  pgUrl?: string;
  out: string;
  sources?: number;
  sourcesAsked?: number;
  optimade?: number;
  views?: boolean;
  search?: number;
  searchPortal?: number;
  runs: number;
  data?: string;
  sideBySide?: boolean;
  firstPage?: boolean;
  container?: string;
  serverDist?: string;
  legacy?: number[];
  export?: number;
}

const atLeastOne = (option: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${option} must be a whole number >= 1`);
  return n;
};

const percent = (v: string) => {
  const n = Number(v);
  if (!(n >= 0 && n <= 100)) throw new Error('--steal-limit must be a percentage from 0 to 100');
  return n;
};

const count = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 100) throw new Error('--nodes must be a whole number >= 100, e.g. 1e4');
  return n;
};

const sizes = (v: string) => v.split(',').map((s) => count(s.trim()));

/** The command line of `npm run bench`, run with `action`. */
export function benchCommand(action: (options: Options) => Promise<void>): Command {
  return new Command('bench')
    .description('benchmark Quarry on a generated archive against the HTTP and database floors')
    .option('--nodes <n>', 'size of the generated archive', count, 10_000)
    .addOption(
      new Option('--backend <kind>', 'serve the archive itself, or its data loaded into PostgreSQL')
        .choices(['archive', 'postgres'])
        .default('archive'),
    )
    .option('--concurrency <list>', 'concurrent connections, comma-separated', '1,16,64')
    .option('--duration <seconds>', 'seconds per measurement', Number, 5)
    .option(
      '--warmup <seconds>',
      'seconds each request kind is driven, unmeasured, before the measurements',
      Number,
      1,
    )
    .option(
      '--processes <n>',
      'Quarry server processes (as quarry serve --processes)',
      atLeastOne('--processes'),
      availableParallelism(),
    )
    .option(
      '--steal-limit <percent>',
      'measure again while the host stole more of the CPU than this during a measurement',
      percent,
      10,
    )
    .option(
      '--tries <n>',
      'measurements at most for each row (the least disturbed is kept)',
      atLeastOne('--tries'),
      3,
    )
    .option(
      '--only <text>',
      'measure only the request kinds (with --views: the views) whose name contains this text',
    )
    .option('--target <url>', 'measure another server of the API (same data) instead of a local Quarry')
    .option('--metrics', 'serve with metrics on (quarry serve --metrics), to measure what counting costs')
    .option(
      '--pg-url <url>',
      'with --backend postgres: measure this database, loaded from the same archive before, instead of loading one',
    )
    .option('--plans <file>', 'with --backend postgres: write EXPLAIN (ANALYZE, BUFFERS) of each kind here')
    .option(
      '--optimade <structures>',
      'measure the OPTIMADE API instead, on an archive of this many structures (src/bench/optimade.ts)',
      atLeastOne('--optimade'),
    )
    .option(
      '--views',
      "instead: time each explorer view's first content in Chromium on the archive of --nodes (src/bench/views.ts)",
    )
    .option(
      '--search <structures>',
      "instead: time the explorer's chemical search (through OPTIMADE) on an archive of this many structures",
      count,
    )
    .option(
      '--runs <n>',
      'with --views or --search: measured first visits of each view',
      atLeastOne('--runs'),
      3,
    )
    .option(
      '--data <path>',
      'serve this archive (.aiida) or core.sqlite_dos folder instead of a generated archive (with --backend postgres: an archive, loaded)',
    )
    .option(
      '--legacy <sizes>',
      'instead: write legacy (0.13) archives of these sizes, comma-separated, and time their conversion against the extraction of main_0001 ones (src/bench/legacy.ts)',
      sizes,
    )
    .option(
      '--export <nodes>',
      'instead: time .aiida exports (one calculation with its provenance, a large one) on an archive of this many nodes (src/bench/export.ts)',
      count,
    )
    .option('--out <file>', 'JSON results', 'bench-results.json')
    .option(
      '--sources <n>',
      'instead: a portal of n generated archives (500 nodes each) served by quarry serve FOLDER, each asked once',
      count,
    )
    .option(
      '--search-portal <n>',
      'instead: GET /search/ over a portal of n generated archives of --nodes nodes each (src/bench/search-portal.ts)',
      atLeastOne('--search-portal'),
    )
    .option(
      '--sources-asked <n>',
      'with --sources: ask only the first n archives (a large portal by names)',
      count,
    )
    .option(
      '--side-by-side',
      'instead: the same data as an archive, core.sqlite_dos and PostgreSQL, at the first --concurrency (src/bench/side-by-side.ts)',
    )
    .option(
      '--first-page',
      'instead: the first page of a listing by a node type never asked, against the same page asked again, on the archive of --nodes (or --backend postgres); --tries servers (src/bench/first-page.ts)',
    )
    .option(
      '--container <tarball>',
      'with --side-by-side and --data: the disk-objectstore container of the data',
    )
    .option(
      '--server-dist <dir>',
      "with --side-by-side or --first-page: serve with this build's dist/ folder (another version)",
    )
    .action(action);
}
