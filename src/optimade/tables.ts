/**
 * The side table of each served source, opened on first use and kept; a live source's is built again when its
 * data version moves. A request that finds its table still being built waits for it up to its own time limit,
 * then is answered 503 with Retry-After, and the build goes on.
 */
import type { StorageBackend } from '../storage/types.js';
import { within } from '../util/within.js';
import { OptimadeError } from './errors.js';
import { openSideTable, type SideTable, type SideTableOptions } from './side-table.js';
import { STRUCTURE_TYPE } from './side-rows.js';

interface Slot {
  table?: SideTable;
  /** The live data version last seen, and the structures' signature at it. */
  seen?: { dataVersion: string; signature: Promise<string> };
  /** A build (or open) under way, for the version it is for. */
  pending?: { version: string; done: Promise<SideTable> };
}

const RETRY_AFTER_S = 5;

export class SideTables {
  private readonly slots = new Map<StorageBackend, Slot>();
  private closed = false;
  /** Stops the builds under way when the server closes. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: (backend: StorageBackend) => SideTableOptions) {}

  /** The table of `backend` as its data is now; waits until `deadline` (ms since 1970) at most. */
  async of(backend: StorageBackend, deadline: number): Promise<SideTable> {
    if (this.closed) throw closing();
    let slot = this.slots.get(backend);
    if (slot === undefined) this.slots.set(backend, (slot = {}));
    const version = backend.identity ?? (await liveVersion(backend, slot));
    if (slot.table?.version === version) return slot.table;
    if (slot.pending?.version !== version) {
      const options = { ...this.options(backend), signal: this.stopping.signal };
      const done = openSideTable(backend, version, options).then(
        async (table) => {
          const old = slot.table;
          slot.table = table;
          if (slot.pending?.done === done) slot.pending = undefined;
          // Requests still reading the old table hold its pool for a moment more.
          if (old) setTimeout(() => void old.close(), 60_000).unref();
          if (this.closed) await table.close();
          return table;
        },
        (error: unknown) => {
          if (slot.pending?.done === done) slot.pending = undefined;
          throw error;
        },
      );
      done.catch(() => undefined);
      slot.pending = { version, done };
    }
    return waitUntil(slot.pending.done, deadline);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    await Promise.all([...this.slots.values()].map((s) => s.table?.close()));
  }
}

/**
 * A live source's version for the side table: its structures' signature (count, newest pk and mtime), asked
 * again only when the data version moved. A profile whose workflows keep writing moves its data version all
 * the time; its structures change far less often, and only then is the table built again.
 */
async function liveVersion(backend: StorageBackend, slot: Slot): Promise<string> {
  if (!backend.dataVersion) return 'unchanging';
  const dataVersion = await backend.dataVersion();
  if (slot.seen?.dataVersion !== dataVersion) {
    const signature = structuresSignature(backend);
    signature.catch(() => {
      if (slot.seen?.signature === signature) slot.seen = undefined;
    });
    slot.seen = { dataVersion, signature };
  }
  return slot.seen.signature;
}

async function structuresSignature(backend: StorageBackend): Promise<string> {
  const p = backend.db.dialect === 'postgres' ? '$1' : '?';
  const rows = await backend.db.values({
    sql: `SELECT count(*), max(id), max(mtime) FROM db_dbnode WHERE node_type = ${p}`,
    params: [STRUCTURE_TYPE],
  });
  return JSON.stringify(rows[0]?.map((v) => (v === null ? null : String(v))));
}

/** The answer to a request that finds the server closing: it may ask the server that takes over. */
export function closing(): OptimadeError {
  const error = new OptimadeError(503, 'Service Unavailable', 'Quarry is shutting down; ask again shortly');
  return Object.assign(error, { retryAfter: RETRY_AFTER_S });
}

/** The table once built, if that is before `deadline`; else 503 with Retry-After, and the build goes on. */
async function waitUntil(table: Promise<SideTable>, deadline: number): Promise<SideTable> {
  const outcome = await within(table, Math.max(0, deadline - Date.now()));
  if (outcome === undefined) {
    const error = new OptimadeError(
      503,
      'Service Unavailable',
      'the OPTIMADE table of this source is being built (once per source and data version); ask again shortly',
    );
    throw Object.assign(error, { retryAfter: RETRY_AFTER_S });
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}
