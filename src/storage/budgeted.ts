/**
 * The storage as one request sees it: every statement the request runs, through any layer, shares the
 * request's budget (its deadline, its lane), without each layer handing the budget down.
 */
import { queryObserver, type QueryObserver } from './observe.js';
import type { Database, QueryBudget, StorageBackend } from './types.js';

const ORIGIN = Symbol('origin');

/**
 * The data version each request read, by its budget: its tag (src/ops/etag.ts), its kept answer's name and its
 * kept summaries all name one version, read once (a live SQLite profile's is two stats of its files, asked twice
 * by a posted query before). A version that could not be read is asked again.
 */
const versions = new WeakMap<QueryBudget, Promise<string>>();

export function budgeted(backend: StorageBackend, budget: QueryBudget): StorageBackend {
  const db = backend.db;
  // Timing each statement costs a promise more per statement: only while someone watches (--metrics).
  const observe = queryObserver();
  const view: Database =
    observe === undefined
      ? {
          dialect: db.dialect,
          all: (statement) => db.all(statement, budget),
          values: (statement) => db.values(statement, budget),
          close: () => db.close(),
        }
      : {
          dialect: db.dialect,
          all: (statement) => timed(db.all(statement, budget), observe),
          values: (statement) => timed(db.values(statement, budget), observe),
          close: () => db.close(),
        };
  if (db.dataVersion) view.dataVersion = () => db.dataVersion!(budget);
  // Properties assigned, not described: Object.create with descriptors takes V8's slow path (0.5 µs in a loop,
  // 5-8 µs a request in a serving process, which makes one or two views per request).
  const viewed = Object.create(backend) as {
    db: Database;
    [ORIGIN]: StorageBackend;
    dataVersion?: () => Promise<string>;
  };
  viewed.db = view;
  viewed[ORIGIN] = backend;
  const version = backend.dataVersion;
  if (version !== undefined)
    viewed.dataVersion = function (this: StorageBackend) {
      let read = versions.get(budget);
      if (read === undefined) {
        versions.set(budget, (read = version.call(this)));
        read.catch(() => versions.delete(budget));
      }
      return read;
    };
  return viewed as unknown as StorageBackend;
}

/** The storage a request's view was made from (itself when it is no view): the key of what is kept per storage. */
export function originOf(backend: StorageBackend): StorageBackend {
  return (backend as { [ORIGIN]?: StorageBackend })[ORIGIN] ?? backend;
}

function timed<T>(running: Promise<T>, observe: QueryObserver): Promise<T> {
  const start = performance.now();
  return running.then(
    (result) => {
      observe(performance.now() - start, undefined);
      return result;
    },
    (error: unknown) => {
      observe(performance.now() - start, error);
      throw error;
    },
  );
}
