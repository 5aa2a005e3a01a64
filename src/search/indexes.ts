/**
 * Which search index each source of the catalog has, learned once per source (and per version of it: a
 * replaced archive is learned anew) by opening it through the catalog: its copy names its index. Sources are
 * learned in the background, two at a time, as searches find them unknown; a search meanwhile covers the
 * sources already known and says how many are still being indexed. Open index files are kept within the
 * process's open-file budget, closed least recently used first, never under a search that reads them.
 */
import { stat } from 'node:fs/promises';
import BetterSqlite3 from 'better-sqlite3';
import type { SourceCatalog } from '../sources/catalog.js';
import { fileBudget as processFileBudget, type FileBudget, type FileHolder } from '../storage/file-budget.js';
import { archiveCopy } from '../storage/archive-copy.js';
import type { StorageBackend } from '../storage/types.js';
import {
  completeMeta,
  ensureIndex,
  indexBeside,
  readFacts,
  readFigures,
  type IndexFacts,
  type IndexFigures,
} from './index-file.js';

/** Sources learned at once. */
const LEARNING_AT_ONCE = 2;
/** SQLite's page cache of one index open for searches (KiB). */
const INDEX_CACHE_KIB = 128;
/** How long a source whose index could not be made is left alone before it is tried again. */
const FAILED_KEPT_MS = 60_000;

/** What is known of one source's index. */
export type IndexState =
  | { state: 'ready'; version: string; kind: string; index: string; figures: IndexFigures; facts: IndexFacts }
  | { state: 'failed'; version: string; kind: string; problem: string; until: number };

/** An index file open for searches. */
export interface OpenIndex {
  readonly db: BetterSqlite3.Database;
  /** The search is done with it: it may be closed from now on. */
  release(): void;
}

interface Handle extends FileHolder {
  db: BetterSqlite3.Database;
  users: number;
  closed: boolean;
}

export class SearchIndexes {
  private readonly known = new Map<string, IndexState>();
  private readonly learning = new Set<string>();
  private readonly waiting: string[] = [];
  private readonly handles = new Map<string, Handle>();
  private active = 0;
  private closed = false;

  constructor(
    private readonly catalog: SourceCatalog,
    private readonly files: FileBudget = processFileBudget,
  ) {}

  /**
   * Every source served now, each with what is known of its index (undefined: being learned); unknown ones
   * are queued to be learned.
   */
  current(): { name: string; kind: string; state: IndexState | undefined }[] {
    const out: { name: string; kind: string; state: IndexState | undefined }[] = [];
    for (const info of this.catalog.list()) {
      const version = this.catalog.spec(info.name)?.version ?? '';
      let state = this.known.get(info.name);
      const stale =
        state !== undefined &&
        (state.version !== version || (state.state === 'failed' && Date.now() > state.until));
      if (stale) {
        this.known.delete(info.name);
        state = undefined;
      }
      if (state === undefined) this.learn(info.name);
      out.push({ name: info.name, kind: state?.kind ?? info.kind, state });
    }
    return out;
  }

  /**
   * Resolves once every source queued now is learned, or after `ms`: a first search on a small portal waits
   * for its few sources rather than answer that they are being indexed.
   */
  async learned(ms: number): Promise<void> {
    this.current();
    const end = Date.now() + ms;
    while (this.learning.size > 0 && Date.now() < end)
      await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private learn(name: string) {
    if (this.closed || this.learning.has(name)) return;
    this.learning.add(name);
    this.waiting.push(name);
    this.next();
  }

  private next() {
    while (this.active < LEARNING_AT_ONCE && this.waiting.length > 0) {
      const name = this.waiting.shift()!;
      this.active += 1;
      void this.learnOne(name).finally(() => {
        this.active -= 1;
        this.learning.delete(name);
        this.next();
      });
    }
  }

  private async learnOne(name: string) {
    const version = this.catalog.spec(name)?.version ?? '';
    let kind = this.catalog.spec(name)?.kind ?? 'archive';
    let lease;
    try {
      lease = await this.catalog.acquire(name);
      if (lease === undefined) return;
      kind = lease.backend.kind;
      const copy = archiveCopy(lease.backend);
      if (copy === undefined) {
        throw new Error(`${kindName(lease.backend.kind)} is not indexed for search yet; search its own API`);
      }
      const meta = await metaOf(lease.backend, this.catalog.spec(name)?.origin);
      const index = indexBeside(copy);
      let figures = await ensureIndex(copy, meta);
      // An index made with the copy knew the archive's size only. Another process that has it open for
      // searches keeps it from being written (see open): the versions are then known to this process only.
      if (figures.aiidaVersion === null) {
        try {
          completeMeta(index, meta);
          figures = readFigures(index) ?? figures;
        } catch {
          figures = {
            ...figures,
            aiidaVersion: meta.aiida_version ?? null,
            exportVersion: meta.export_version ?? figures.exportVersion,
          };
        }
      }
      const facts = readFacts(index);
      this.known.set(name, { state: 'ready', version, kind, index, figures, facts });
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      this.known.set(name, { state: 'failed', version, kind, problem, until: Date.now() + FAILED_KEPT_MS });
    } finally {
      lease?.release();
    }
  }

  /** The index file, open, for one search; undefined if it cannot be opened now. */
  open(index: string): OpenIndex | undefined {
    let handle = this.handles.get(index);
    if (handle === undefined || handle.closed) {
      let db: BetterSqlite3.Database;
      try {
        db = new BetterSqlite3(index, { readonly: true, fileMustExist: true });
        // Pages read stay in the system's file cache, shared; SQLite's own cache (2 MB by default) held per open
        // index was most of a portal's memory: a search reads every index, and a process keeps hundreds open.
        db.pragma(`cache_size = -${INDEX_CACHE_KIB}`);
        // An index never changes once made: its shared lock is kept, not taken again and its file's header
        // read again for every statement (a search runs three per source, a fifth of a small one's cost).
        db.pragma('locking_mode = EXCLUSIVE');
      } catch {
        return undefined;
      }
      const made: Handle = {
        db,
        users: 0,
        closed: false,
        files: 1,
        busy: () => made.users > 0,
        close: () => {
          made.closed = true;
          if (this.handles.get(index) === made) this.handles.delete(index);
          db.close();
        },
      };
      handle = made;
      this.handles.set(index, handle);
      this.files.add(handle);
    } else this.files.touch(handle);
    const held = handle;
    held.users += 1;
    let released = false;
    return {
      db: held.db,
      release: () => {
        if (released) return;
        released = true;
        held.users -= 1;
        this.files.makeRoom();
      },
    };
  }

  close(): void {
    this.closed = true;
    for (const handle of [...this.handles.values()]) {
      this.files.remove(handle);
      handle.close();
    }
  }
}

async function metaOf(backend: StorageBackend, origin: string | undefined): Promise<Record<string, string>> {
  const meta: Record<string, string> = { aiida_version: backend.aiidaVersion };
  if (backend.exportVersion !== undefined) meta.export_version = backend.exportVersion;
  const size = origin === undefined ? undefined : await stat(origin).catch(() => undefined);
  if (size?.isFile() === true) meta.archive_bytes = String(size.size);
  return meta;
}

function kindName(kind: string): string {
  return kind === 'postgres-profile' ? 'a PostgreSQL profile' : 'a core.sqlite_dos profile';
}
