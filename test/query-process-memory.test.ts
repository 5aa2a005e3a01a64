/**
 * A query process gives back the memory a load of statements freed once it has been quiet a while
 * (src/storage/query-child.ts, native/memory-trim.c): otherwise each kept 70 MB after a benchmark's load, where it
 * idles at 25.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlitePool } from '../src/storage/sqlite-pool.js';
import { MEMORY_TRIM_EXTENSION } from '../src/storage/sqlite-extensions.js';
import { tempDir } from './helpers.js';
import { anonymousBytes } from './support/process-memory.js';
import { childrenOf } from './support/serving.js';

const MB = 1024 * 1024;

/** This process's query processes (children run with --expose-gc), by pid. */
const queryProcesses = () =>
  childrenOf(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--expose-gc');
    } catch {
      return false; // Ended while read.
    }
  });

describe.skipIf(MEMORY_TRIM_EXTENSION === undefined)('a quiet query process', () => {
  let pool: SqlitePool;
  beforeAll(async () => {
    const file = join(tempDir(), 'rows.sqlite3');
    const db = new BetterSqlite3(file);
    db.exec('CREATE TABLE db_dbnode (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO db_dbnode (id, v) VALUES (?, ?)');
    db.transaction(() => {
      for (let i = 1; i <= 20_000; i++) insert.run(i, `${i} `.repeat(200));
    })();
    db.close();
    // A live database: every statement goes to the query process.
    pool = await SqlitePool.open(file, { size: 1 });
  });
  afterAll(() => pool.close());

  it('gives back the memory its statements freed', async () => {
    // Rows of about 20 MB a statement, each a large message to send.
    for (let i = 0; i < 8; i++) {
      const rows = await pool.values({ sql: 'SELECT id, v FROM db_dbnode WHERE id > ?', params: [i] });
      expect(rows.length).toBe(20_000 - i);
    }
    const [child] = queryProcesses();
    expect(child, 'the query process').toBeDefined();
    const loaded = anonymousBytes(child!);
    let now = loaded;
    const deadline = Date.now() + 20_000;
    while (now > loaded - 20 * MB && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      now = anonymousBytes(child!);
    }
    expect((loaded - now) / MB, `${Math.round(loaded / MB)} MB after the load`).toBeGreaterThan(20);
  }, 30_000);
});
