/**
 * Runaway queries on SQLite are stopped for real: the process running one is killed at the request's deadline
 * or past its memory bound, and it leaves nothing running; the request's queries share one deadline; the heavy
 * lane and the bounded waiting keep ordinary requests answering while heavy ones run.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { openArchive } from '../src/storage/index.js';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import { QueryStoppedError, QueryTimeoutError, type StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';

/** Counting to 10^10 keeps SQLite busy for far longer than any limit below. */
const ENDLESS = {
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) AS n FROM c',
  params: [],
};
/** A sort of ever more rows, held in memory: grows until something stops it. */
const GREEDY = {
  sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT x, randomblob(200) FROM c ORDER BY random()',
  params: [],
};

/** Whether a process is gone (or only a zombie waiting to be reaped: it runs nothing and holds no memory). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

const node = (tag: string, extra: Record<string, unknown> = {}) => ({
  entity_type: '',
  orm_base: 'node',
  tag,
  ...extra,
});
/** Every four nodes of one user: billions of rows, never answered within a test's limits. */
const HEAVY_QUERY = {
  path: [
    { entity_type: 'user', orm_base: 'user', tag: 'u' },
    ...['a', 'b', 'c', 'd'].map((t) => node(t, { joining_keyword: 'with_user', joining_value: 'u' })),
  ],
  project: { d: ['id'] },
};

describe('SQLite queries stopped for real', () => {
  let archive: string;
  beforeAll(async () => {
    archive = await smallArchive(300, 2);
  });

  it('kills the process of a query past its deadline: nothing of it keeps running', async () => {
    const pool = await SqlitePool.open(join(await extractedCopy(archive)), { size: 2, timeoutMs: 400 });
    try {
      await pool.ready();
      const before = pool.processIds;
      const started = Date.now();
      await expect(pool.all(ENDLESS)).rejects.toBeInstanceOf(QueryTimeoutError);
      const stoppedAfter = Date.now() - started;
      expect(stoppedAfter).toBeLessThan(5_000);
      // The process that ran it is gone, and a new one took its place.
      const killed = before.filter((pid) => !pool.processIds.includes(pid));
      expect(killed).toHaveLength(1);
      expect(await waitUntil(() => gone(killed[0]!), 3_000)).toBe(true);
      const rows = await pool.all({ sql: 'SELECT count(*) AS n FROM db_dbnode', params: [] });
      expect(rows[0]!.n).toBe(300);
      console.log(`runaway query: answered and its process killed ${stoppedAfter} ms after it started`);
    } finally {
      await pool.close();
    }
  });

  it('stops a query past its memory bound long before the time limit', async () => {
    const pool = await SqlitePool.open(await extractedCopy(archive), {
      size: 1,
      timeoutMs: 60_000,
      memoryMb: 160,
    });
    try {
      await pool.ready();
      const pid = pool.processIds[0]!;
      let peak = 0;
      const watch = setInterval(() => (peak = Math.max(peak, residentMb(pid))), 20);
      const started = Date.now();
      const error = await pool.all(GREEDY).catch((e: unknown) => e);
      clearInterval(watch);
      expect(error).toBeInstanceOf(QueryStoppedError);
      expect((error as Error).message).toMatch(/160 MB of memory/);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(await waitUntil(() => gone(pid), 3_000)).toBe(true);
      // The bound is checked every 100 ms: the process is stopped at most a little past it.
      expect(peak).toBeLessThan(160 + 200);
      console.log(`greedy query: stopped after ${Date.now() - started} ms at a peak of ${peak} MB`);
      expect((await pool.all({ sql: 'SELECT 1 AS one', params: [] }))[0]!.one).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('counts every statement of a request against one deadline', async () => {
    const pool = await SqlitePool.open(await extractedCopy(archive), { size: 2, timeoutMs: 60_000 });
    try {
      const budget = { deadline: Date.now() + 400 };
      await expect(pool.all(ENDLESS, budget)).rejects.toBeInstanceOf(QueryTimeoutError);
      // The request's time is spent: its next statement is refused at once, not given a time limit of its own.
      const second = Date.now();
      await expect(
        pool.all({ sql: 'SELECT count(*) FROM db_dbnode WHERE id > ?', params: [1] }, budget),
      ).rejects.toBeInstanceOf(QueryTimeoutError);
      expect(Date.now() - second).toBeLessThan(200);
    } finally {
      await pool.close();
    }
  });

  it('ends a running query when the pool closes, and starts no process after', async () => {
    const pool = await SqlitePool.open(await extractedCopy(archive), { size: 1, timeoutMs: 2_000 });
    await pool.ready();
    const pid = pool.processIds[0]!;
    const running = expect(pool.all(ENDLESS)).rejects.toThrow(/closed/);
    await new Promise((r) => setTimeout(r, 100));
    await pool.close();
    await running;
    expect(gone(pid)).toBe(true);
    // Past the query's time limit nothing of the pool comes back to life.
    await new Promise((r) => setTimeout(r, 2_300));
    expect(pool.processIds).toEqual([pid]);
    expect(gone(pid)).toBe(true);
  });

  it('ends its query processes when the serving process is killed in the middle of a query', async () => {
    const dist = join(import.meta.dirname, '..', 'dist', 'storage', 'sqlite-pool.js');
    expect(existsSync(dist), 'npm run build first').toBe(true);
    const script = `
      const { SqlitePool } = await import(${JSON.stringify(dist)});
      const pool = await SqlitePool.open(${JSON.stringify(await extractedCopy(archive))}, { size: 2 });
      await pool.ready();
      console.log(JSON.stringify(pool.processIds));
      pool.all(${JSON.stringify(ENDLESS)}).catch(() => {});
      setInterval(() => {}, 1000);
    `;
    const server = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pids: number[] = await new Promise((resolve) =>
      server.stdout.once('data', (d: Buffer) => resolve(JSON.parse(d.toString()))),
    );
    expect(pids).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 300));
    server.kill('SIGKILL');
    expect(await waitUntil(() => pids.every(gone), 5_000)).toBe(true);
  });

  it("lets a program that has nothing else to do await an archive's close() to its end", async () => {
    const dist = join(import.meta.dirname, '..', 'dist');
    const script = `
      const { openArchive } = await import(${JSON.stringify(join(dist, 'storage', 'index.js'))});
      const { buildApp } = await import(${JSON.stringify(join(dist, 'server', 'app.js'))});
      const backend = await openArchive(${JSON.stringify(archive)}, { cacheDir: ${JSON.stringify(tempDir())} });
      const app = await buildApp({ backends: [backend] });
      await app.inject({ url: '/api/v4/nodes/page/1/?perpage=5' });
      await app.close();
      await backend.close();
      console.log('closed');
    `;
    const program = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    program.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise((resolve) => program.once('exit', resolve));
    // Node exits with 13 when the loop empties under an await that never settles.
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'closed' });
  });
});

describe('lanes and bounded waiting over HTTP', () => {
  let backend: StorageBackend;
  beforeAll(async () => {
    backend = await openArchive(await smallArchive(300, 3), {
      cacheDir: tempDir(),
      workers: 2,
      queryTimeoutMs: 3_000,
    });
  });
  afterAll(async () => backend.close());

  it('keeps ordinary requests answering in milliseconds while heavy QueryBuilder queries run', async () => {
    const app = await buildApp({ backends: [backend], queryTimeoutMs: 3_000 });
    // Each one different: identical counts would share one statement.
    const post = (_: unknown, i: number) => {
      const sent = Date.now();
      return app
        .inject({
          method: 'POST',
          url: '/api/v4/querybuilder/',
          payload: { ...HEAVY_QUERY, filters: { d: { id: { '>': i } } } },
        })
        .then((r) => ({
          status: r.statusCode,
          retryAfter: r.headers['retry-after'],
          message: r.json().message as string,
          at: Date.now(),
          ms: Date.now() - sent,
        }));
    };
    // A first run teaches the server what this query costs: the whole time limit.
    const first = await post(undefined, 100);
    expect(first.status).toBe(503);
    expect(first.message).toMatch(/time limit/);
    const heavy = Array.from({ length: 8 }, post);
    await new Promise((r) => setTimeout(r, 100));
    // Uncached listings of many shapes: each one's statements run in a query process, not in this thread.
    const ordinary: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = Date.now();
      const answer = await app.inject({ method: 'GET', url: `/api/v4/nodes/?id>${i * 7}&limit=${3 + i}` });
      expect(answer.statusCode, answer.body).toBe(200);
      ordinary.push(Date.now() - started);
    }
    const ordinaryDone = Date.now();
    const answers = await Promise.all(heavy);
    // One heavy query runs (all processes but one), one waits (it could start before its deadline); the others
    // could not start within their time limit behind them, and are refused at once with Retry-After.
    const refused = answers.filter((a) => a.retryAfter !== undefined);
    expect(refused.length).toBe(6);
    expect(
      refused.every(
        (a) => a.status === 503 && /lane for long queries is busy/.test(a.message) && a.ms < 1_000,
      ),
    ).toBe(true);
    const stopped = answers.filter((a) => a.retryAfter === undefined);
    expect(stopped.every((a) => a.status === 503 && /time limit/.test(a.message))).toBe(true);
    // Every ordinary request was answered while the heavy one was still running.
    expect(stopped.every((a) => a.at > ordinaryDone)).toBe(true);
    expect(Math.max(...ordinary)).toBeLessThan(1_000);
    console.log(
      `ordinary requests beside 8 heavy ones: ${ordinary.join(', ')} ms; heavy: ${answers.map((a) => a.status).join(', ')}`,
    );
    await app.close();
  }, 20_000);
});

describe('answer size', () => {
  it('refuses a posted query whose answer would pass --max-rows, before reading its rows, and says how to page', async () => {
    const backend = await openArchive(await smallArchive(300, 3), { cacheDir: tempDir() });
    const app = await buildApp({ backends: [backend], maxRows: 100 });
    const post = (extra: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: '/api/v4/querybuilder/',
        payload: { path: [node('n')], project: { n: ['id'] }, ...extra },
      });
    const all = await post({});
    expect(all.statusCode).toBe(400);
    expect(all.json().message).toMatch(
      /matches 300 rows; this server answers at most 100 .*"limit".*"offset"/,
    );
    const page = await post({ limit: 100, offset: 250 });
    expect(page.statusCode).toBe(200);
    expect(page.json().data.n).toHaveLength(50);
    await app.close();
    await backend.close();
  });

  it('refuses the links tree of a node with more neighbours than --max-rows, and answers it within a limit', async () => {
    const backend = await openArchive(await smallArchive(300, 3), { cacheDir: tempDir() });
    const app = await buildApp({ backends: [backend], maxRows: 10 });
    const codes = await app.inject(
      '/api/v4/nodes/page/1/?perpage=1&node_type="data.core.code.installed.InstalledCode."',
    );
    const code = codes.json().data.nodes[0].uuid as string;
    const outgoing = await app.inject(`/api/v4/nodes/${code}/links/outgoing/page/1/?perpage=1`);
    const links = Number(outgoing.headers['x-total-count']);
    expect(links).toBeGreaterThan(10);
    const tree = (query: string) => app.inject(`/api/v4/nodes/${code}/links/tree/${query}`);
    const whole = await tree('');
    expect(whole.statusCode).toBe(400);
    expect(whole.json().message).toMatch(
      new RegExp(`more than 10 outgoing links.*out_limit.*/nodes/${code}/links/outgoing/page/1/`),
    );
    // A limit past the bound is no way round it; one within it is answered with the whole count.
    expect((await tree('?out_limit=1000000')).statusCode).toBe(400);
    const within = await tree('?out_limit=10');
    expect(within.statusCode).toBe(200);
    expect(within.json().data.metadata[0]).toMatchObject({
      sent_no_of_outgoings: 10,
      total_no_of_outgoings: links,
    });
    await app.close();
    await backend.close();
  });
});

function residentMb(pid: number): number {
  try {
    return (Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]) * 4096) / 2 ** 20;
  } catch {
    return 0;
  }
}

/** The archive's extracted database, opened by its own pool in each test. */
async function extractedCopy(archive: string): Promise<string> {
  const backend = await openArchive(archive, { cacheDir: sharedCache });
  const file = (backend.db as SqlitePool).file;
  await backend.close();
  return file;
}
const sharedCache = tempDir('quarry-runaway-');
