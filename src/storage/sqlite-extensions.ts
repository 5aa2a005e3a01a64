/**
 * The SQLite extensions `npm install` builds (scripts/build-native.mjs) from native/: absent where no C compiler
 * was at hand, and then Quarry does without what they give.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';

const built = (name: string) => {
  const file = fileURLToPath(new URL(`../../build/${name}.so`, import.meta.url));
  return existsSync(file) ? file : undefined;
};

/** Stops a statement run in the serving thread at its time (native/statement-deadline.c). */
export const DEADLINE_EXTENSION = built('statement-deadline');

/** `quarry_json_http_date`, for records SQLite writes as JSON (native/http-date.c). */
export const HTTP_DATE_EXTENSION = built('http-date');

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
