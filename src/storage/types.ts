/**
 * The one interface every storage backend (archive, sqlite profile, postgres profile) offers.
 * Asynchronous throughout so that heavy queries can later move off the event loop.
 */
import type { Readable } from 'node:stream';

export type Dialect = 'sqlite' | 'postgres';

/** A SQL statement with positional parameters; values are never spliced into `sql`. */
export interface SqlStatement {
  sql: string;
  params: unknown[];
}

export type SqlRow = Record<string, unknown>;

export interface Database {
  readonly dialect: Dialect;
  all(statement: SqlStatement): Promise<SqlRow[]>;
  close(): Promise<void>;
}

export interface RepositoryObject {
  /** Size in bytes of the (uncompressed) object. */
  size: number;
  stream(): Promise<Readable>;
}

export interface Repository {
  /** Look an object up by its hash key; `undefined` when the repository does not hold it. */
  get(key: string): Promise<RepositoryObject | undefined>;
  close(): Promise<void>;
}

export interface StorageBackend {
  /** A short name for logs and `?profile=` selection. */
  readonly name: string;
  readonly kind: 'archive' | 'sqlite-profile' | 'postgres-profile';
  /** The AiiDA version recorded with the data (archive metadata or profile database). */
  readonly aiidaVersion: string;
  readonly db: Database;
  readonly repository: Repository;
  close(): Promise<void>;
}

/** Raised when a storage cannot be opened; its message is one line that says what to do. */
export class StorageOpenError extends Error {
  override name = 'StorageOpenError';
}
