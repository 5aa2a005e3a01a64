/** Watching the statements a storage runs, for tests that assert how many ran or under which budget. */
import type { Database, QueryBudget, SqlStatement } from '../../src/storage/types.js';

/** From now on, `note` is told of each statement `db` runs (its `all` and `values`), before it runs. */
export function onEachStatement(
  db: Database,
  note: (statement: SqlStatement, budget?: QueryBudget) => void,
): void {
  const { all, values } = db;
  Object.assign(db, {
    all: (...args: Parameters<Database['all']>) => (note(...args), all.apply(db, args)),
    values: (...args: Parameters<Database['values']>) => (note(...args), values.apply(db, args)),
  });
}

/** The count of statements `db` runs from now on. */
export function countStatements(db: Database): () => number {
  let count = 0;
  onEachStatement(db, () => count++);
  return () => count;
}
