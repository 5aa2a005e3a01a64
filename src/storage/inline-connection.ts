/**
 * A read-only connection in the serving thread, with the same settings as the query processes', for the
 * statements the pool (sqlite-pool.ts) knows or expects to be quick: a round trip to a process would cost more
 * than they do.
 */
import BetterSqlite3 from 'better-sqlite3';
import { MMAP_BYTES } from './query-child.js';
import { DEADLINE_EXTENSION as deadlineExtension, loadHttpDate } from './sqlite-extensions.js';
import type { SqlStatement } from './types.js';

/** Said once per process: the extension is there but SQLite refused it. */
let unloadable = false;

/** A statement run by `within` that was stopped at its time; the pool then runs it in a query process. */
export class InlineStopped extends Error {
  override name = 'InlineStopped';
}

export class InlineConnection {
  private readonly db: BetterSqlite3.Database;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly arm?: BetterSqlite3.Statement;
  private readonly disarm?: BetterSqlite3.Statement;

  constructor(file: string, unchanging: boolean) {
    this.db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    this.db.pragma('query_only = ON');
    if (unchanging) {
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma(`mmap_size = ${MMAP_BYTES}`);
    }
    this.db.pragma('case_sensitive_like = ON');
    loadHttpDate(this.db);
    if (deadlineExtension !== undefined && !unloadable) {
      try {
        // SQLite finds its entry point, sqlite3_statementdeadline_init, by the file's name.
        this.db.loadExtension(deadlineExtension);
        this.arm = this.db.prepare('SELECT quarry_arm(?)');
        this.disarm = this.db.prepare('SELECT quarry_disarm()');
      } catch (error) {
        // A file built for another machine, say: the database is served all the same, as without it.
        unloadable = true;
        process.stderr.write(
          `quarry: ${deadlineExtension} cannot be loaded (${(error as Error).message}); statements of unknown ` +
            'cost run in query processes only. `npm rebuild quarry` (or `npm install` in a checkout) builds it again.\n',
        );
      }
    }
  }

  /** Whether `within` can stop a statement at its time (the extension was built at install). */
  get canStop(): boolean {
    return this.arm !== undefined;
  }

  all(statement: SqlStatement, arrays: boolean): unknown[] {
    return this.prepared(statement.sql)
      .raw(arrays)
      .all(...statement.params);
  }

  private prepared(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.statements.size > 1000) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** `all`, stopped with InlineStopped once it has run `ms` milliseconds (the watcher looks at that time). */
  within({ sql, params }: SqlStatement, arrays: boolean, ms: number): unknown[] {
    if (this.arm === undefined || this.disarm === undefined) throw new InlineStopped('cannot be stopped');
    // Prepared before the arm: the time is the statement's run, not its planning.
    const statement = this.prepared(sql).raw(arrays);
    this.arm.get(Math.ceil(ms));
    try {
      return statement.all(...params);
    } catch (error) {
      if (isInterrupt(error)) throw new InlineStopped(`past ${ms} ms`);
      throw error;
    } finally {
      this.disarmed(this.disarm);
    }
  }

  /**
   * The watcher interrupts a statement past its time at every look until it is disarmed, so the disarming
   * statement itself can be interrupted (the serving thread taken off its core meanwhile): it is run again.
   */
  private disarmed(disarm: BetterSqlite3.Statement) {
    for (let tries = 1; ; tries++) {
      try {
        disarm.get();
        return;
      } catch (error) {
        if (!isInterrupt(error) || tries >= 1000) throw error;
      }
    }
  }

  close() {
    this.db.close();
  }
}

const isInterrupt = (error: unknown) => (error as { code?: unknown }).code === 'SQLITE_INTERRUPT';
