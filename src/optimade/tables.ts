/**
 * The side table of each served source, opened on first use and kept while used; a live source's is built again
 * when its data version moves. A request that finds its table still being built waits for it up to its own time
 * limit, then is answered 503 with Retry-After, and the build goes on. Open tables take their files from the
 * process's open-file budget (src/storage/file-budget.ts), which closes the least recently used, and those no
 * request used for a while; a table let go of is closed as soon as its last reader is done. A table is served as
 * soon as its first pass is written; its symmetry is found afterwards (side-symmetry.ts), and a request that
 * needs the symmetry waits for it in the same way, then is answered 503 saying how far the pass is.
 */
import { budgeted } from '../storage/budgeted.js';
import { fileBudget, type FileBudget, type FileHolder } from '../storage/file-budget.js';
import type { StorageBackend } from '../storage/types.js';
import { within } from '../util/within.js';
import { OptimadeError } from './errors.js';
import { completeSymmetry, openSideTable, type SideTable, type SideTableOptions } from './side-table.js';
import { STRUCTURE_TYPE } from './side-rows.js';
import { CIF_TYPE } from './cif-sites.js';

interface Slot {
  table?: SideTable;
  /** The live data version last seen, and the structures' signature at it. */
  seen?: { dataVersion: string; signature: Promise<string> };
  /** A build (or open) under way, for the version it is for. */
  pending?: { version: string; done: Promise<SideTable> };
  /** The symmetry pass of `table` under way, and the structures it has done. */
  symmetry?: { table: SideTable; done: Promise<SideTable>; progress: number; running: boolean };
}

const RETRY_AFTER_S = 5;
/**
 * Side tables kept open at once: a portal serves many sources, and each open table holds its files (and, for
 * a source with query processes of its own, two processes). The least recently asked is closed past this; it
 * opens again in a moment from its file, which stays built.
 */
const MOST_OPEN = 8;
/** Files an open table keeps in this process: the connection quick statements run on. */
const TABLE_FILES = 1;
/** Files a running symmetry pass keeps: each of its two threads reads the source and writes a part file. */
const PASS_FILES = 6;

interface Held {
  readers: number;
  /** Let go of (replaced, least recently used, idle): closed once `readers` is 0. */
  leaving: boolean;
  holder: FileHolder;
}

/**
 * Symmetry passes run one after another in the process: each takes build threads and their files, and a portal
 * under load would otherwise start one per source with structures at once (files and cores past any bound).
 */
let passes: Promise<unknown> = Promise.resolve();

export class SideTables {
  private readonly slots = new Map<StorageBackend, Slot>();
  private closed = false;
  /** Every open table: its readers, and its share of the open-file budget. */
  private readonly held = new Map<SideTable, Held>();
  /** Stops the builds under way when the server closes. */
  private readonly stopping = new AbortController();

  /** `options` of a source's table, given the time limit of the source's statements (its `query_timeout`). */
  constructor(
    private readonly options: (
      backend: StorageBackend,
      queryTimeoutMs: number | undefined,
    ) => SideTableOptions,
    private readonly files: FileBudget = fileBudget,
  ) {}

  /** `read(table)` on the table of `backend` (see `of`); the table is not closed while `read` runs. */
  async read<T>(
    backend: StorageBackend,
    deadline: number,
    queryTimeoutMs: number | undefined,
    read: (table: SideTable) => Promise<T>,
    /** The request reads the symmetry columns: it waits for the symmetry pass too. */
    needsSymmetry = false,
  ): Promise<T> {
    let table = await this.of(backend, deadline, queryTimeoutMs, needsSymmetry);
    let held = this.held.get(table);
    // Handed out but closed before its reader was counted (another source's opening closed it for room, or the
    // table with its symmetry took its place): it opens again from its file.
    while (held === undefined && !this.closed && Date.now() < deadline) {
      table = await this.of(backend, deadline, queryTimeoutMs, needsSymmetry);
      held = this.held.get(table);
    }
    if (held === undefined) return read(table);
    held.readers += 1;
    this.files.touch(held.holder);
    try {
      return await read(table);
    } finally {
      held.readers -= 1;
      this.files.touch(held.holder);
      if (held.readers === 0 && held.leaving) this.closeTable(table);
      else this.files.makeRoom();
    }
  }

  /**
   * The table of `backend` as its data is now; waits until `deadline` (ms since 1970) at most. A table opened
   * now stops each statement at `queryTimeoutMs`, the source's limit.
   */
  async of(
    backend: StorageBackend,
    deadline: number,
    queryTimeoutMs?: number,
    needsSymmetry = false,
  ): Promise<SideTable> {
    if (this.closed) throw closing();
    let slot = this.slots.get(backend);
    // Kept in the order they were last asked for, the least recent first.
    this.slots.delete(backend);
    this.slots.set(backend, (slot ??= {}));
    const version = backend.identity ?? (await liveVersion(steadily(backend), slot));
    const options = { ...this.options(backend, queryTimeoutMs), signal: this.stopping.signal };
    if (slot.table?.version === version) {
      const table = slot.table;
      if (table.symmetry === 'complete') return table;
      const symmetry = this.symmetryOf(slot, backend, table, options);
      return needsSymmetry ? waitForSymmetry(symmetry, table.count, deadline) : table;
    }
    if (slot.pending?.version !== version) {
      const done = openSideTable(steadily(backend), version, options).then(
        async (table) => {
          const old = slot.table;
          slot.table = table;
          if (slot.pending?.done === done) slot.pending = undefined;
          if (old) this.letGo(old);
          if (this.closed) await table.close();
          else {
            this.hold(backend, slot, table);
            this.bound();
          }
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
    const table = await waitUntil(slot.pending.done, deadline);
    // Asked again: the answer of a table whose symmetry is pending (the pass starts then).
    return table.symmetry === 'complete' ? table : this.of(backend, deadline, queryTimeoutMs, needsSymmetry);
  }

  /** The symmetry pass of `table`, started if none is under way (a pass that failed is started again). */
  private symmetryOf(
    slot: Slot,
    backend: StorageBackend,
    table: SideTable,
    options: SideTableOptions,
  ): NonNullable<Slot['symmetry']> {
    if (slot.symmetry?.table === table) return slot.symmetry;
    const symmetry: NonNullable<Slot['symmetry']> = {
      table,
      done: Promise.resolve(table),
      progress: 0,
      running: false,
    };
    const report = (done: number) => (symmetry.progress = done);
    const run = async () => {
      if (this.closed) throw closing();
      // A table let go of (for room) while its pass waited needs none; a request opens it again.
      if (slot.table !== table) throw symmetryPending(symmetry.progress, table.count);
      symmetry.running = true;
      // Its files count in the budget while it runs, which closes idle tables and sources to make room.
      const holder: FileHolder = { files: PASS_FILES, busy: () => true, close: () => undefined };
      this.files.add(holder);
      try {
        return await completeSymmetry(steadily(backend), table, report, options);
      } finally {
        this.files.remove(holder);
      }
    };
    symmetry.done = passes.then(run, run).then(
      async (complete) => {
        if (slot.symmetry === symmetry) slot.symmetry = undefined;
        if (this.closed || slot.table !== table) {
          await complete.close();
          return complete;
        }
        slot.table = complete;
        this.hold(backend, slot, complete);
        this.letGo(table);
        return complete;
      },
      (error: unknown) => {
        if (slot.symmetry === symmetry) slot.symmetry = undefined;
        throw error;
      },
    );
    symmetry.done.catch(() => undefined);
    passes = symmetry.done.catch(() => undefined);
    slot.symmetry = symmetry;
    return symmetry;
  }

  /** At most MOST_OPEN tables open: the least recently asked beyond are closed (and their slots forgotten). */
  private bound(): void {
    let open = [...this.slots.values()].filter((s) => s.table !== undefined).length;
    for (const [backend, slot] of this.slots) {
      if (open <= MOST_OPEN) return;
      if (slot.table === undefined || slot.pending !== undefined || slot.symmetry?.running) continue;
      this.slots.delete(backend);
      this.letGo(slot.table);
      open -= 1;
    }
  }

  /** Count an opened table in the budget; closing it for room or when idle forgets its slot too. */
  private hold(backend: StorageBackend, slot: Slot, table: SideTable): void {
    const held: Held = {
      readers: 0,
      leaving: false,
      holder: {
        files: TABLE_FILES,
        // A table whose symmetry pass runs is read by the pass (one waiting for its turn may be closed).
        busy: () => held.readers > 0 || (slot.symmetry?.table === table && slot.symmetry.running),
        close: () => {
          if (slot.table === table) {
            slot.table = undefined;
            if (slot.pending === undefined && this.slots.get(backend) === slot) this.slots.delete(backend);
          }
          this.letGo(table);
        },
      },
    };
    this.held.set(table, held);
    this.files.add(held.holder);
  }

  /** The table is no longer handed out: closed now, or when its last reader is done. */
  private letGo(table: SideTable): void {
    const held = this.held.get(table);
    if (held === undefined) return void table.close();
    held.leaving = true;
    if (held.readers === 0) this.closeTable(table);
  }

  private closeTable(table: SideTable): void {
    const held = this.held.get(table);
    this.held.delete(table);
    if (held !== undefined) this.files.remove(held.holder);
    void table.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    // The symmetry passes stop at their next slice or range, and remove their files.
    await Promise.all([...this.slots.values()].map((s) => s.symmetry?.done.catch(() => undefined)));
    const open = [...this.held.keys()];
    for (const held of this.held.values()) this.files.remove(held.holder);
    this.held.clear();
    await Promise.all(open.map((t) => t.close()));
  }
}

/**
 * The source as its side table reads it. On PostgreSQL with read replicas, a check of the version, a build and
 * a symmetry pass each read one server, the same every time (the primary before the replicas, see QueryBudget's
 * `steady`), as the OPTIMADE requests do: statements in turn over the servers built tables that mixed a lagging
 * replica's structures with the primary's, labelled with either's version, and rebuilt them as requests went to
 * one server or the other. SQLite has one file to read.
 */
function steadily(backend: StorageBackend): StorageBackend {
  return backend.db.dialect === 'postgres'
    ? budgeted(backend, { deadline: Infinity, steady: true })
    : backend;
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
  const p = backend.db.dialect === 'postgres' ? ['$1', '$2'] : ['?', '?'];
  const rows = await backend.db.values({
    sql: `SELECT count(*), max(id), max(mtime) FROM db_dbnode WHERE node_type IN (${p.join(', ')})`,
    params: [STRUCTURE_TYPE, CIF_TYPE],
  });
  return JSON.stringify(rows[0]?.map((v) => (v === null ? null : String(v))));
}

/** The answer to a request that finds the server closing: it may ask the server that takes over. */
export function closing(): OptimadeError {
  const error = new OptimadeError(503, 'Service Unavailable', 'Quarry is shutting down; ask again shortly');
  return Object.assign(error, { retryAfter: RETRY_AFTER_S });
}

/** The table with its symmetry, if found before `deadline`; else 503 with Retry-After, and the pass goes on. */
async function waitForSymmetry(
  symmetry: NonNullable<Slot['symmetry']>,
  count: number,
  deadline: number,
): Promise<SideTable> {
  const outcome = await within(symmetry.done, Math.max(0, deadline - Date.now()));
  if (outcome === undefined) throw symmetryPending(symmetry.progress, count);
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

function symmetryPending(done: number, count: number): OptimadeError {
  const error = new OptimadeError(
    503,
    'Service Unavailable',
    `the space groups of this source are still being computed (${done} of ${count} structures, once per source and data version); filters, sorts and response_fields on space_group_* and wyckoff_positions are answered once they are; ask again shortly`,
  );
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
