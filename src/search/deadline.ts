/**
 * A search's statements stopped at its request's deadline: each runs armed with the time left
 * (native/statement-deadline.c, the extension the query engine's inline statements use), so that one large
 * index never holds the serving thread past the time limit. Where the extension is not built, statements run
 * to their end and the search stops between two sources instead.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { DEADLINE_EXTENSION } from '../storage/sqlite-extensions.js';

/** The statement ran past the search's time limit. */
export class SearchLate extends Error {
  override name = 'SearchLate';
}

interface Arms {
  arm: BetterSqlite3.Statement;
  disarm: BetterSqlite3.Statement;
}

const loaded = new WeakMap<BetterSqlite3.Database, Arms | null>();
/** Connections armed now: statements run within an armed block are not armed again (4 µs each). */
const armed = new WeakSet<BetterSqlite3.Database>();

function armsOf(db: BetterSqlite3.Database): Arms | null {
  let arms = loaded.get(db);
  if (arms === undefined) {
    arms = null;
    if (DEADLINE_EXTENSION !== undefined) {
      try {
        db.loadExtension(DEADLINE_EXTENSION);
        arms = { arm: db.prepare('SELECT quarry_arm(?)'), disarm: db.prepare('SELECT quarry_disarm()') };
      } catch {
        // Built for another machine, say: the search is stopped between sources only.
      }
    }
    loaded.set(db, arms);
  }
  return arms;
}

/**
 * Runs `run` (statements of `db`: one, or all a source's search runs) stopped at `deadline` (ms since 1970);
 * throws SearchLate past it.
 */
export function beforeDeadline<T>(db: BetterSqlite3.Database, deadline: number, run: () => T): T {
  if (deadline === Number.POSITIVE_INFINITY || armed.has(db)) return run();
  const left = deadline - Date.now();
  if (left <= 0) throw new SearchLate('past the time limit');
  const arms = armsOf(db);
  if (arms === null) return run();
  arms.arm.get(Math.ceil(left));
  armed.add(db);
  try {
    return run();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_INTERRUPT')
      throw new SearchLate('past the time limit');
    throw error;
  } finally {
    armed.delete(db);
    disarm(arms.disarm);
  }
}

/** The watcher interrupts every statement until disarmed, the disarming one too: it is run again. */
function disarm(statement: BetterSqlite3.Statement) {
  for (let tries = 1; ; tries++) {
    try {
      statement.get();
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_INTERRUPT' || tries >= 1000) throw error;
    }
  }
}
