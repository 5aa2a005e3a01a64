/** A read-only SQLite database behind the Database interface, with prepared statements cached by SQL text. */
import BetterSqlite3 from 'better-sqlite3';
import { StorageOpenError, type Database, type SqlRow, type SqlStatement } from './types.js';

export function openSqlite(file: string): Database {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
    // LIKE is case-sensitive in AiiDA on every backend (aiida sets this pragma too); it also lets LIKE 'prefix%'
    // use the indexes.
    db.pragma('case_sensitive_like = ON');
    db.prepare('SELECT count(*) FROM db_dbnode').get();
  } catch (error) {
    throw new StorageOpenError(`${file} is not a readable AiiDA database (${(error as Error).message})`);
  }
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    dialect: 'sqlite',
    async all({ sql, params }: SqlStatement): Promise<SqlRow[]> {
      let statement = statements.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        if (statements.size > 1000) statements.clear();
        statements.set(sql, statement);
      }
      return statement.all(...(params as unknown[])) as SqlRow[];
    },
    async close() {
      db.close();
    },
  };
}
