/**
 * The repository files of a generated archive, kept in a scratch SQLite file rather than in memory: real
 * repositories hold a distinct file per calculation, so their total grows with the archive (gigabytes at
 * 10^7 nodes). Written once, read back in key order when the zip is written.
 */
import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';

export class FileStore {
  private readonly db: BetterSqlite3.Database;
  private readonly insert: BetterSqlite3.Statement<[string, Buffer]>;
  private readonly page: BetterSqlite3.Statement<[string, number], { key: string; content: Buffer }>;
  private readonly one: BetterSqlite3.Statement<[string], { content: Buffer }>;
  private count = 0;

  constructor(file: string) {
    this.db = new BetterSqlite3(file);
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec('CREATE TABLE files (key TEXT PRIMARY KEY, content BLOB NOT NULL) WITHOUT ROWID');
    this.insert = this.db.prepare('INSERT OR IGNORE INTO files VALUES (?, ?)');
    this.page = this.db.prepare('SELECT key, content FROM files WHERE key > ? ORDER BY key LIMIT ?');
    this.one = this.db.prepare('SELECT content FROM files WHERE key = ?');
    this.db.exec('BEGIN');
  }

  /** Store a file under the sha256 of its content; the key is returned. */
  add(content: Buffer): string {
    const key = createHash('sha256').update(content).digest('hex');
    this.count += this.insert.run(key, content).changes;
    return key;
  }

  /** The content stored under `key` (the legacy writer reads files by node, not in key order). */
  get(key: string): Buffer {
    const row = this.one.get(key);
    if (!row) throw new Error(`no repository file with key ${key}`);
    return row.content;
  }

  get size(): number {
    return this.count;
  }

  /** Every file in key order, a page at a time. */
  *entries(pageSize = 256): Generator<{ key: string; content: Buffer }> {
    this.db.exec('COMMIT');
    let after = '';
    for (;;) {
      const rows = this.page.all(after, pageSize);
      yield* rows;
      if (rows.length < pageSize) return;
      after = (rows[rows.length - 1] as { key: string }).key;
    }
  }

  close() {
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.db.close();
  }
}
