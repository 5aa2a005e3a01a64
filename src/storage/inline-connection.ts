/**
 * A read-only connection in the serving thread, with the same settings as the query processes', for the
 * statements the pool (sqlite-pool.ts) knows to be quick: a round trip to a process would cost more than they do.
 */
import BetterSqlite3 from 'better-sqlite3';
import { MMAP_BYTES } from './query-child.js';
import type { SqlStatement } from './types.js';

export class InlineConnection {
  private readonly db: BetterSqlite3.Database;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(file: string, unchanging: boolean) {
    this.db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    this.db.pragma('query_only = ON');
    if (unchanging) {
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma(`mmap_size = ${MMAP_BYTES}`);
    }
    this.db.pragma('case_sensitive_like = ON');
  }

  all({ sql, params }: SqlStatement, arrays: boolean): unknown[] {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.statements.size > 1000) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement.raw(arrays).all(...params);
  }

  close() {
    this.db.close();
  }
}
