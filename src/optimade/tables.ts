/**
 * The side table of each served source, opened on first use and kept; a live source's is built again when its
 * data version moves. A request that finds its table still being built waits for it up to its own time limit,
 * then is answered 503 with Retry-After, and the build goes on.
 */
import type { StorageBackend } from '../storage/types.js';
import { OptimadeError } from './errors.js';
import { openSideTable, type SideTable, type SideTableOptions } from './side-table.js';

interface Slot {
  table?: SideTable;
  /** A build (or open) under way, for the version it is for. */
  pending?: { version: string; done: Promise<SideTable> };
}

const RETRY_AFTER_S = 5;

export class SideTables {
  private readonly slots = new Map<StorageBackend, Slot>();
  private closed = false;

  constructor(private readonly options: (backend: StorageBackend) => SideTableOptions) {}

  /** The table of `backend` as its data is now; waits until `deadline` (ms since 1970) at most. */
  async of(backend: StorageBackend, deadline: number): Promise<SideTable> {
    const version = backend.identity ?? (backend.dataVersion ? await backend.dataVersion() : 'unchanging');
    let slot = this.slots.get(backend);
    if (slot === undefined) this.slots.set(backend, (slot = {}));
    if (slot.table?.version === version) return slot.table;
    if (slot.pending?.version !== version) {
      const done = openSideTable(backend, version, this.options(backend)).then(
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
    await Promise.all([...this.slots.values()].map((s) => s.table?.close()));
  }
}

async function waitUntil(table: Promise<SideTable>, deadline: number): Promise<SideTable> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        const error = new OptimadeError(
          503,
          'Service Unavailable',
          'the OPTIMADE table of this source is being built (once per source and data version); ask again shortly',
        );
        reject(Object.assign(error, { retryAfter: RETRY_AFTER_S }));
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([table, late]);
  } finally {
    clearTimeout(timer);
  }
}
