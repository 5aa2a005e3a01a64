/**
 * The storage as one request sees it: every statement the request runs, through any layer, shares the
 * request's budget (its deadline, its lane), without each layer handing the budget down.
 */
import type { Database, QueryBudget, StorageBackend } from './types.js';

const ORIGIN = Symbol('origin');

export function budgeted(backend: StorageBackend, budget: QueryBudget): StorageBackend {
  const db = backend.db;
  const view: Database = {
    dialect: db.dialect,
    all: (statement) => db.all(statement, budget),
    values: (statement) => db.values(statement, budget),
    close: () => db.close(),
  };
  if (db.dataVersion) view.dataVersion = () => db.dataVersion!(budget);
  return Object.create(backend, { db: { value: view }, [ORIGIN]: { value: backend } }) as StorageBackend;
}

/** The storage a request's view was made from (itself when it is no view): the key of what is kept per storage. */
export function originOf(backend: StorageBackend): StorageBackend {
  return (backend as { [ORIGIN]?: StorageBackend })[ORIGIN] ?? backend;
}
