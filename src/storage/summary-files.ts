/**
 * A live database's node-wide summaries (statistics, type counts) cost a pass over every node: seconds at
 * millions of nodes. They are kept on disk as well, under the data version they were computed at, so that a
 * restarted Quarry (a deployment, a crash, a second instance) answers them at once while the data is the same.
 *
 * A data version is the server's snapshot of committed transactions: the same snapshot of the same database,
 * in the same run of the same server, is the same data. A file holds the newest version computed of one summary
 * of one database on one run of its server, with its whole key: it is only ever read for the key it was
 * written under, and a database that keeps changing keeps one file a summary, not one a version.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from './types.js';

/** Which database, on which run of which server: asked of the server that answers the request. */
const LINEAGE =
  'SELECT pg_postmaster_start_time()::text AS started, d.oid::text AS oid, d.datname AS name ' +
  'FROM pg_database AS d WHERE d.datname = current_database()';

interface SummaryFile {
  key: string;
  value: unknown;
}

/** A summary as a restarted run finds it: its value, if a run kept it, and how to keep one computed now. */
export interface KeptOnDisk {
  value: unknown;
  keep(value: unknown): Promise<void>;
}

export class SummaryFiles {
  constructor(private readonly dir: string) {}

  /** The summary `name` at `version` of the database the request reads from (`db`, the request's view). */
  async find(db: Database, name: string, version: string): Promise<KeptOnDisk> {
    const rows = await db.all({ sql: LINEAGE, params: [] });
    const row = rows[0] ?? {};
    const place = JSON.stringify([row.started, row.oid, row.name, name]);
    const key = JSON.stringify([row.started, row.oid, row.name, name, version]);
    // One file a summary, database and server run: the newest version computed replaces the one before.
    const path = join(this.dir, `${createHash('sha256').update(place).digest('hex').slice(0, 32)}.json`);
    return { value: await read(path, key), keep: (value) => this.write(path, key, value) };
  }

  /**
   * Written under a temporary name and renamed, so that a process reading it meanwhile sees the old file or the
   * new one, never part of one. A failure to write costs only the next start's head start.
   */
  private async write(path: string, key: string, value: unknown): Promise<void> {
    const temporary = `${path}.${process.pid}.tmp`;
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(temporary, JSON.stringify({ key, value } satisfies SummaryFile));
      await rename(temporary, path);
    } catch {
      // Not kept: computed again after a restart, as without these files; nor is a part written left behind.
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }
}

async function read(path: string, key: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const kept = JSON.parse(text) as SummaryFile;
    return kept.key === key ? kept.value : undefined;
  } catch {
    // A file cut short (a full disk) is computed again, and written anew.
    return undefined;
  }
}
