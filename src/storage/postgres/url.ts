/**
 * What Quarry reads from a libpq connection URL for its own messages and names. The WHATWG URL parser refuses
 * libpq's forms for a local server's socket (`postgres://user@/aiida?host=/var/run/postgresql`,
 * `postgres://%2Fvar%2Frun%2Fpostgresql/aiida`), which the driver accepts, so the driver's own parser is used.
 */
import { parse } from 'pg-connection-string';

export interface PostgresTarget {
  /** `host:port/database`; the host is the socket's folder for a local socket. */
  where: string;
  /** The database's name, or `postgres` when the URL names none. */
  database: string;
}

/** Where a URL points. Throws, with the driver's message, on a URL the driver cannot read either. */
export function postgresTarget(url: string): PostgresTarget {
  const c = parse(url);
  const database = c.database || 'postgres';
  return { where: `${c.host || 'localhost'}:${c.port || 5432}/${database}`, database };
}

/** A connection URL without its password (in the user part or as a `password` parameter), for messages. */
export function redacted(url: string): string {
  return url
    .replace(/^(postgres(?:ql)?:\/\/[^:@/?#]*:)[^@/?#]*@/, '$1***@')
    .replace(/([?&]password=)[^&#]*/g, '$1***');
}
