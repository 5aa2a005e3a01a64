/**
 * A throw-away PostgreSQL cluster for tests and the benchmark: initdb into a temporary folder, a free loopback port, stopped
 * and removed afterwards. Found from QUARRY_PG_BIN, Debian's /usr/lib/postgresql/<v>/bin or the PATH; the
 * tests that need it skip when PostgreSQL is not installed (.ci/run installs it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function postgresBin(): string | undefined {
  const candidates = [process.env.QUARRY_PG_BIN];
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  const onPath = spawnSync('sh', ['-c', 'dirname "$(command -v pg_ctl)"'], { encoding: 'utf8' });
  if (onPath.status === 0) candidates.push(onPath.stdout.trim());
  return candidates.find((dir) => dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

/** The longest path of a Unix socket (`sun_path`, 108 bytes with its terminating zero). */
const SOCKET_PATH_MAX = 107;
/** A cluster folder's name and its socket's within it: `quarry-pg-XXXXXX/.s.PGSQL.NNNNN`. */
const SOCKET_TAIL = '/quarry-pg-XXXXXX/.s.PGSQL.65535'.length;

/**
 * The folder to make a cluster's folder in: TMPDIR, unless the cluster's socket path would be too long there or
 * (run as root) the postgres user cannot enter it, as in a private TMPDIR that `mktemp -d` made; then /tmp.
 */
export function clusterParent(asRoot: boolean): string {
  const usable = (folder: string) =>
    folder.length + SOCKET_TAIL <= SOCKET_PATH_MAX &&
    (!asRoot || spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', folder]).status === 0);
  const folder = [tmpdir(), '/tmp'].find(usable);
  if (folder === undefined)
    throw new Error(
      `PostgreSQL's test clusters need a folder the postgres user can enter; ${tmpdir()} and /tmp are not`,
    );
  return folder;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Cluster {
  port: number;
  /** The cluster's data folder (its size on disk is the database's footprint). */
  dataDir: string;
  url(database: string): string;
  /** The same database through the server's local socket (libpq's `host=` folder form). */
  socketUrl(database: string): string;
  /** The folder of the server's local socket. */
  socketDir: string;
  /** Create a database, load a gzipped plain-SQL dump into it and gather its planner statistics. */
  restore(database: string, dumpGz: string): void;
  /** Run SQL as the superuser. */
  sql(database: string, text: string): string;
  stop(): void;
  start(): void;
  destroy(): void;
}

const USER = 'quarry';

/** Server settings beyond the defaults (`name=value`, as `postgres -c`), e.g. the benchmark's memory sizes. */
export type ClusterSettings = Record<string, string | number>;

export interface ClusterOptions {
  /**
   * Start a streaming standby of this cluster instead of a new one: a base backup of it (`pg_basebackup -R`),
   * which then replays its primary's changes and answers reads only.
   */
  standbyOf?: Cluster;
  settings?: ClusterSettings;
}

export async function startCluster({ standbyOf, settings = {} }: ClusterOptions = {}): Promise<Cluster> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed; .ci/run installs it (apt-get install postgresql)');
  // initdb refuses to run as root; the Debian package's postgres user owns the cluster then.
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(clusterParent(asRoot), 'quarry-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[], input?: string) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    return execFileSync(command, argv, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
  };
  const initialise = () => {
    if (standbyOf) {
      const from = ['-h', '127.0.0.1', '-p', String(standbyOf.port), '-U', USER];
      run('pg_basebackup', ['-D', data, '-R', '-X', 'stream', '--no-sync', '-c', 'fast', ...from]);
    } else {
      run('initdb', ['-D', data, '-A', 'trust', '-U', USER, '--no-sync', '-E', 'UTF8', '--locale=C']);
    }
  };
  const pgctl = (action: 'start' | 'stop') =>
    action === 'start'
      ? run('pg_ctl', [
          '-D',
          data,
          '-w',
          '-l',
          join(dir, 'log'),
          '-o',
          `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off` +
            Object.entries(settings)
              .map(([name, value]) => ` -c ${name}=${String(value)}`)
              .join(''),
          'start',
        ])
      : run('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']);
  try {
    initialise();
    pgctl('start');
  } catch (error) {
    // A cluster that never started leaves nothing behind either.
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const psql = (database: string, extra: string[], input?: string) =>
    run(
      'psql',
      [
        '-X',
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        USER,
        '-d',
        database,
        ...extra,
      ],
      input,
    );
  return {
    port,
    dataDir: data,
    url: (database) => `postgres://${USER}@127.0.0.1:${port}/${database}`,
    socketUrl: (database) => `postgres://${USER}@/${database}?host=${encodeURIComponent(dir)}&port=${port}`,
    socketDir: dir,
    restore(database, dumpGz) {
      psql('postgres', ['-c', `CREATE DATABASE "${database}"`]);
      const dump = execFileSync('gzip', ['-dc', dumpGz], { maxBuffer: 1 << 30, encoding: 'utf8' });
      psql(database, [], dump);
      // A live database has its planner statistics (autovacuum gathers them within a minute of a load); without
      // them PostgreSQL guesses a dozen rows for any filter and plans as if every table were tiny.
      psql(database, ['-c', 'ANALYZE']);
    },
    sql: (database, text) => psql(database, ['-At', '-c', text]),
    stop: () => pgctl('stop'),
    start: () => pgctl('start'),
    destroy() {
      try {
        pgctl('stop');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
