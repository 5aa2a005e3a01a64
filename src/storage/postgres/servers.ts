/**
 * The database servers of one PostgreSQL source: its primary and its read replicas (PostgreSQL's own streaming
 * standbys). Reads are spread over the servers that are up; all of one request's statements run on one server,
 * so that an answer never mixes servers (a page and its count, a summary and the data version it is kept
 * under); reads that must agree across requests (a steady budget) go to the same server every time. A server
 * that fails is taken out and asked again in the background until it answers.
 */
import {
  DatabaseUnavailableError,
  type Database,
  type QueryBudget,
  type ServerState,
  type SourceHealth,
  type SqlRow,
  type SqlStatement,
} from '../types.js';
import type { PostgresDatabase } from './database.js';

export interface ServersOptions {
  /** Reads go to the replicas only; the primary answers only while no replica is up. */
  replicasOnly?: boolean;
  /** How often a server that is out is tried again, in milliseconds (default 1 s). */
  retryMs?: number;
  /** Told when a server is taken out or put back, for the server's log, with how many servers are up then. */
  onChange?: (server: string, up: boolean, problem?: string, upNow?: number) => void;
}

interface Server {
  db: PostgresDatabase;
  role: 'primary' | 'replica';
  up: boolean;
  problem?: string;
  retry?: NodeJS.Timeout;
}

/**
 * A server was lost while it ran a request's statements and another server is up: the request may be run again
 * from its start there (reads are idempotent), which the HTTP layer does once.
 */
export class ServerLostError extends DatabaseUnavailableError {
  override name = 'ServerLostError';
  readonly retryable = true;
}

/**
 * SQLSTATEs that say this server cannot serve now while another may: the connection-level failures that
 * PostgresDatabase reports as unavailable, and a standby cancelling a query in conflict with its recovery.
 */
function serverFailed(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const e = error as { code?: string; message?: string };
  return e.code === '40001' && /conflict with recovery/.test(e.message ?? '');
}

export class PostgresServers implements Database {
  readonly dialect = 'postgres' as const;
  private readonly servers: Server[];
  private readonly pins = new WeakMap<QueryBudget, Server>();
  private turn = 0;
  private closed = false;
  /** Statements that failed with their server while another was up: their requests are run again. */
  serversLost = 0;

  constructor(
    primary: PostgresDatabase,
    replicas: PostgresDatabase[],
    private readonly options: ServersOptions = {},
  ) {
    this.servers = [
      { db: primary, role: 'primary', up: true },
      ...replicas.map((db) => ({ db, role: 'replica' as const, up: true })),
    ];
  }

  all(statement: SqlStatement, budget?: QueryBudget): Promise<SqlRow[]> {
    return this.on(budget, (db) => db.all(statement, budget));
  }

  values(statement: SqlStatement, budget?: QueryBudget): Promise<unknown[][]> {
    return this.on(budget, (db) => db.values(statement, budget));
  }

  /** The data version of the server that runs this request's statements. */
  dataVersion(budget?: QueryBudget): Promise<string> {
    return this.on(budget, (db) => db.dataVersion(budget));
  }

  private async on<T>(
    budget: QueryBudget | undefined,
    run: (db: PostgresDatabase) => Promise<T>,
  ): Promise<T> {
    const server = this.serverFor(budget);
    try {
      return await run(server.db);
    } catch (error) {
      if (!serverFailed(error)) throw error;
      this.takeOut(server, error as Error);
      if (this.readable().length === 0) throw error;
      this.serversLost++;
      throw new ServerLostError((error as Error).message, { cause: error });
    }
  }

  /**
   * The request's server: chosen at its first statement, in turn among the servers that take reads, or for a
   * steady budget the first of them (the primary before the replicas).
   */
  private serverFor(budget: QueryBudget | undefined): Server {
    const pinned = budget && this.pins.get(budget);
    if (pinned) return pinned;
    const readable = this.readable();
    const at = budget?.steady ? 0 : this.turn++ % Math.max(1, readable.length);
    // With every server out, the primary is asked (and answers 503 quickly while it is down).
    const server = readable[at] ?? (this.servers[0] as Server);
    if (budget) this.pins.set(budget, server);
    return server;
  }

  private readable(): Server[] {
    const up = this.servers.filter((s) => s.up);
    if (!this.options.replicasOnly) return up;
    const replicas = up.filter((s) => s.role === 'replica');
    return replicas.length > 0 ? replicas : up;
  }

  private takeOut(server: Server, error: Error) {
    if (this.closed) return;
    server.problem = error.message;
    if (!server.up) return;
    server.up = false;
    const upNow = this.servers.filter((s) => s.up).length;
    this.options.onChange?.(server.db.where, false, error.message, upNow);
    server.retry = setInterval(() => void this.tryAgain(server), this.options.retryMs ?? 1_000);
    server.retry.unref();
  }

  private putBack(server: Server) {
    if (this.closed || server.up) return;
    clearInterval(server.retry);
    server.retry = undefined;
    server.up = true;
    server.problem = undefined;
    this.options.onChange?.(server.db.where, true);
  }

  private async tryAgain(server: Server) {
    try {
      await server.db.ping();
      this.putBack(server);
    } catch (error) {
      server.problem = (error as Error).message;
    }
  }

  /** Asks every server now (each bounded by `waitMs`) and says whether reads can be answered. */
  async health(waitMs = 2_000): Promise<SourceHealth> {
    await Promise.all(
      this.servers.map(async (server) => {
        try {
          await server.db.ping(waitMs);
          this.putBack(server);
        } catch (error) {
          this.takeOut(server, error as Error);
        }
      }),
    );
    const servers = this.states();
    if (this.readable().length > 0) return { ready: true, servers };
    const problems = servers.map((s) => `${s.server}: ${s.problem ?? 'not reachable'}`).join('; ');
    return { ready: false, message: `no database server answers (${problems})`, servers };
  }

  /** Each server's state now, without asking it. */
  states(): ServerState[] {
    return this.servers.map((s) => ({
      server: s.db.where,
      role: s.role,
      up: s.up,
      ...(s.problem === undefined ? {} : { problem: s.problem }),
      sessions: s.db.sessions,
    }));
  }

  /** Sessions of all the servers together. */
  get sessions(): { total: number; idle: number; waiting: number } {
    const all = this.servers.map((s) => s.db.sessions);
    const sum = (key: 'total' | 'idle' | 'waiting') => all.reduce((n, s) => n + s[key], 0);
    return { total: sum('total'), idle: sum('idle'), waiting: sum('waiting') };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.servers) clearInterval(s.retry);
    await Promise.all(this.servers.map((s) => s.db.close()));
  }
}
