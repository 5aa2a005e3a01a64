/**
 * Load a generated archive's database into an empty PostgreSQL database with AiiDA's core.psql_dos schema,
 * for the benchmark's PostgreSQL backend. Only for databases the benchmark creates itself: Quarry never
 * creates or writes tables of a user's database.
 *
 * Each table is created and filled by one COPY in one transaction (COPY FREEZE: the rows are written frozen
 * and their pages marked all-visible, so no VACUUM pass rewrites them and index-only scans work at once; with
 * wal_level=minimal the rows skip the WAL too); keys, indexes and foreign keys are built after the data.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterLoad, createTable, TABLES } from './pg-schema.js';

/** How the load went: rows per table and the seconds of each phase. */
export interface LoadReport {
  rows: Record<string, number>;
  seconds: {
    copy: number;
    keys: number;
    indexes: number;
    foreignKeys: number;
    analyze: number;
    total: number;
  };
  /** pg_database_size of the loaded database, in bytes. */
  databaseBytes: number;
  /** Rows per second over the COPY phase. */
  rowsPerSecond: number;
}

/** Rows sent to the server in one chunk of the COPY stream. */
const ROWS_PER_CHUNK = 2_000;

/** Create the schema in an empty database and copy every table of the SQLite file into it. */
export async function loadIntoPostgres(
  sqliteFile: string,
  url: string,
  progress: (line: string) => void = () => {},
): Promise<LoadReport> {
  const client = new pg.Client({ connectionString: url, options: '-c TimeZone=UTC' });
  await client.connect();
  const source = new BetterSqlite3(sqliteFile, { readonly: true });
  const started = performance.now();
  const phase = async (name: string, statements: string[]) => {
    const t = performance.now();
    for (const sql of statements) await client.query(sql);
    const seconds = (performance.now() - t) / 1000;
    progress(`${name}: ${seconds.toFixed(1)} s`);
    return seconds;
  };
  try {
    await client.query('CREATE TABLE alembic_version (version_num varchar(32) NOT NULL)');
    await client.query("INSERT INTO alembic_version VALUES ('main_0001')");
    await client.query(
      'ALTER TABLE alembic_version ADD CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)',
    );
    const rows: Record<string, number> = {};
    const copyStart = performance.now();
    for (const table of Object.keys(TABLES)) {
      const t = performance.now();
      rows[table] = await copyTable(client, source, table);
      progress(`${table}: ${rows[table]} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const copy = (performance.now() - copyStart) / 1000;
    const { keys, indexes, foreignKeys } = afterLoad();
    const seconds = {
      copy,
      keys: await phase('keys and unique constraints', keys),
      indexes: await phase('indexes', indexes),
      foreignKeys: await phase('foreign keys', foreignKeys),
      // The pages are all-visible already (COPY FREEZE): VACUUM only records that; ANALYZE gives the planner
      // its statistics.
      analyze: await phase('vacuum and analyze', ['VACUUM ANALYZE']),
      total: 0,
    };
    seconds.total = (performance.now() - started) / 1000;
    const size = await client.query('SELECT pg_database_size(current_database()) AS bytes');
    const total = Object.values(rows).reduce((a, b) => a + b, 0);
    return {
      rows,
      seconds,
      databaseBytes: Number(size.rows[0].bytes),
      rowsPerSecond: Math.round(total / copy),
    };
  } finally {
    source.close();
    await client.end();
  }
}

/** Create `table` and COPY every row of the SQLite table of that name into it, in one transaction. */
async function copyTable(client: pg.Client, source: BetterSqlite3.Database, table: string): Promise<number> {
  const names = Object.keys(TABLES[table] as Record<string, string>);
  const columns = names.map((n) => `"${n}"`).join(', ');
  const select = source.prepare(`SELECT ${columns} FROM ${table}`).raw();
  let count = 0;
  function* lines(): Generator<string> {
    let chunk = '';
    let inChunk = 0;
    for (const row of select.iterate() as Iterable<unknown[]>) {
      chunk += row.map(copyText).join('\t') + '\n';
      count += 1;
      if (++inChunk === ROWS_PER_CHUNK) {
        yield chunk;
        chunk = '';
        inChunk = 0;
      }
    }
    if (chunk) yield chunk;
  }
  await client.query('BEGIN');
  try {
    await client.query(createTable(table));
    await pipeline(
      Readable.from(lines()),
      client.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN WITH (FREEZE)`)),
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  return count;
}

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One value in COPY's text format: `\N` for NULL, backslash escapes for the characters that separate
 * columns and rows. The archive holds timestamps as naive UTC text (the session's time zone is UTC), JSON as
 * text and ids as integers, which PostgreSQL reads as they are.
 */
export function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value !== 'string') throw new Error(`cannot COPY a value of type ${typeof value}`);
  return SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] as string) : value;
}
