/**
 * The SQLite extensions `npm install` builds (scripts/build-native.mjs) from native/: absent where no C compiler
 * was at hand, and then Quarry does without what they give.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';

const built = (name: string) => {
  const file = fileURLToPath(new URL(`../../build/${name}.so`, import.meta.url));
  return existsSync(file) ? file : undefined;
};

/** Stops a statement run in the serving thread at its time (native/statement-deadline.c). */
export const DEADLINE_EXTENSION = built('statement-deadline');

/** `quarry_json_http_date`, for records SQLite writes as JSON (native/http-date.c). */
export const HTTP_DATE_EXTENSION = built('http-date');

/** `quarry_trim`, the process's freed heap memory given back to the system (native/memory-trim.c). */
export const MEMORY_TRIM_EXTENSION = built('memory-trim');

/** Whether `db` could load the HTTP date extension: every connection that may run records' statements tries. */
export function loadHttpDate(db: BetterSqlite3.Database): boolean {
  if (HTTP_DATE_EXTENSION === undefined || !httpDatesLoadable) return false;
  try {
    db.loadExtension(HTTP_DATE_EXTENSION);
    return true;
  } catch {
    // Built for another machine, say: records with dates are written in JavaScript.
    httpDatesLoadable = false;
    return false;
  }
}

let httpDatesLoadable = true;

/** Whether SQLite in this process writes HTTP dates (the extension is built and loads). */
export function sqliteWritesHttpDates(): boolean {
  return HTTP_DATE_EXTENSION !== undefined && httpDatesLoadable;
}

let trimming: BetterSqlite3.Statement | null | undefined;

/**
 * Gives this process's freed heap memory back to the system, through a connection of its own to an empty
 * database: whether any was given. Does nothing where the extension was not built or does not load.
 */
export function trimHeap(): boolean {
  if (trimming === undefined) {
    trimming = null;
    if (MEMORY_TRIM_EXTENSION !== undefined)
      try {
        const db = new Database(':memory:');
        db.loadExtension(MEMORY_TRIM_EXTENSION);
        trimming = db.prepare('SELECT quarry_trim()').pluck();
      } catch {
        // Built for another machine, say: the memory stays with the process, as without the extension.
      }
  }
  return trimming?.get() === 1;
}
