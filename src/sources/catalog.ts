/**
 * The catalog of what is served: every source's name and where it is, opened on its first request and closed
 * again when others need the room (least recently used first, within a bound on open sources). A closed source
 * costs its entry here and nothing else. Requests hold a lease on the source they use, so a source is never
 * closed under a request, and a removed or replaced one is closed once its last request has finished.
 */
import { fileBudget as processFileBudget, type FileBudget } from '../storage/file-budget.js';
import type { StorageBackend } from '../storage/types.js';
import { filesOf, newEntry, type Entry } from './catalog-entry.js';
import type { SharedFacts } from './shared-facts.js';
import { named, openingRefused, SourceOpenFailedError } from './refusals.js';

export { SourceOpenFailedError } from './refusals.js';

export type SourceKind = StorageBackend['kind'];

/** What the catalog knows of a source without opening it. */
export interface SourceSpec {
  /** Its path segment (src/sources/names.ts). */
  readonly name: string;
  readonly kind: SourceKind;
  /** Where it is, for messages and the index: a file, a folder, a profile name, a redacted URL. */
  readonly origin: string;
  /**
   * What the source is now (a file's size and mtime, a settings text): a source whose version changes is
   * replaced by a new entry, served anew.
   */
  readonly version: string;
  /** The source's own time limit for a request, in seconds, where it differs from the server's. */
  readonly queryTimeout?: number;
}

/** Opens the storage a spec names; the CLI knows the settings (cache folder, time limits) it needs. */
export type Opener<S extends SourceSpec = SourceSpec> = (spec: S) => Promise<StorageBackend>;

export interface Lease {
  readonly backend: StorageBackend;
  readonly name: string;
  /** The request is done with the source: it may be closed from now on. Once only; more calls do nothing. */
  release(): void;
}

/** What the index says of one source. */
export interface SourceInfo {
  name: string;
  kind: SourceKind;
  origin: string;
  /** Open in this process now. */
  open: boolean;
  /** Opened by this server (any of its serving processes) since it started: the same in every process. */
  opened: boolean;
  nodes: number | null;
  aiidaVersion: string | null;
  /** An archive's export version (an AiiDA 1.x archive's original one, such as 0.13), once opened. */
  exportVersion: string | null;
}

/**
 * How long a source that failed to open answers with that failure before it is tried again: a source whose
 * database is out is not asked to connect by every request that finds it so (nor its failure logged each time).
 */
const FAILED_OPEN_KEPT_MS = 5_000;

export interface CatalogOptions {
  /** Most sources open at once, pinned ones included (default 64); more are opened only while in use. */
  maxOpen?: number;
  /** Told when a source opens or closes, or fails to (logs, metrics). */
  onEvent?: (event: CatalogEvent) => void;
  /** Sources come and go while serving (a watched folder, a sources file): it may even be empty (default true). */
  dynamic?: boolean;
  /** The open-file budget the open sources take their files from (default: the process's). */
  files?: FileBudget;
  /** What the index says of each source, shared with the server's other serving processes (shared-facts.ts). */
  facts?: SharedFacts;
}

export type CatalogEvent =
  | { type: 'opened'; name: string; ms: number }
  | { type: 'replaced'; name: string }
  | { type: 'closed'; name: string }
  | { type: 'failed'; name: string; error: Error };

export class SourceCatalog<S extends SourceSpec = SourceSpec> {
  private readonly entries = new Map<string, Entry>();
  /** Names by lower case: lookups by path are case-sensitive, clashes are not. */
  private readonly removed = new Map<string, number>();
  private readonly maxOpen: number;
  private readonly files: FileBudget;
  private openCount = 0;
  private closed = false;
  private clock = 0;
  /** The source answering at the plain prefix. */
  private firstName: string | undefined;
  readonly dynamic: boolean;

  constructor(
    private readonly opener: Opener<S>,
    private readonly options: CatalogOptions = {},
  ) {
    this.maxOpen = Math.max(1, options.maxOpen ?? 64);
    this.dynamic = options.dynamic ?? true;
    this.files = options.files ?? processFileBudget;
  }

  /** A catalog of storages already open (the command line's, the tests'): all pinned, first is the default. */
  static of(backends: readonly StorageBackend[]): SourceCatalog {
    const catalog = new SourceCatalog(
      () => Promise.reject(new Error('every source of this catalog is open')),
      {
        maxOpen: Number.MAX_SAFE_INTEGER,
        dynamic: false,
      },
    );
    for (const backend of backends) catalog.pin(backend);
    return catalog;
  }

  /** Add a storage opened by the caller; it stays open until the catalog closes. */
  pin(backend: StorageBackend, origin = backend.name): void {
    const spec = { name: backend.name, kind: backend.kind, origin, version: 'pinned' } as SourceSpec as S;
    this.insert(spec, backend);
    // Open from the start, so the index can say its size as for a source opened on demand.
    const entry = this.entries.get(spec.name);
    if (entry !== undefined) void this.countNodes(entry, backend);
  }

  /** Add sources known by their specs, opened when first asked for. */
  add(specs: readonly S[]): void {
    for (const spec of specs) this.insert(spec);
  }

  private insert(spec: S, backend?: StorageBackend) {
    if (this.entries.has(spec.name)) throw new Error(`the catalog has a source named "${spec.name}" already`);
    this.entries.set(spec.name, newEntry(spec, backend));
    if (backend !== undefined) this.openCount += 1;
    this.removed.delete(spec.name);
    this.firstName ??= spec.name;
  }

  /**
   * Make the catalog hold exactly `specs` (a folder scanned again, a sources file read again): new names are
   * added, missing ones removed, those whose version changed replaced. Pinned sources are kept. Requests under
   * way finish on what they hold. Returns what changed.
   */
  update(specs: readonly S[]): { added: string[]; removed: string[]; replaced: string[] } {
    const wanted = new Map(specs.map((s) => [s.name, s]));
    const changes = { added: [] as string[], removed: [] as string[], replaced: [] as string[] };
    for (const [name, entry] of [...this.entries]) {
      if (entry.pinned) continue;
      const next = wanted.get(name);
      if (next !== undefined && next.version === entry.spec.version) continue;
      this.retire(name, entry);
      if (next === undefined) {
        changes.removed.push(name);
        this.removed.set(name, Date.now());
      } else changes.replaced.push(name);
    }
    for (const spec of specs) {
      if (this.entries.has(spec.name)) continue;
      if (!changes.replaced.includes(spec.name)) changes.added.push(spec.name);
      this.insert(spec);
    }
    if (this.firstName !== undefined && !this.entries.has(this.firstName)) {
      this.firstName = this.entries.keys().next().value;
    }
    return changes;
  }

  private retire(name: string, entry: Entry) {
    this.entries.delete(name);
    entry.retired = true;
    if (entry.users === 0) void this.closeEntry(entry);
  }

  /** The names served, in catalog order (the first is the default). */
  names(): string[] {
    return [...this.entries.keys()];
  }

  get size(): number {
    return this.entries.size;
  }

  get first(): string | undefined {
    return this.firstName;
  }

  /**
   * The source chosen to answer the plain `/optimade/v1/` and to be the OPTIMADE index's default child
   * (`--optimade-default`, a sources file's `optimade_default`); none or one no longer served: the first.
   */
  optimadeDefault?: string;

  get optimadeFirst(): string | undefined {
    return this.optimadeDefault !== undefined && this.entries.has(this.optimadeDefault)
      ? this.optimadeDefault
      : this.firstName;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  spec(name: string): S | undefined {
    return this.entries.get(name)?.spec as S | undefined;
  }

  /** Whether `name` was served and has been removed (its requests are told so, not a bare 404). */
  wasRemoved(name: string): boolean {
    return this.removed.has(name) && !this.entries.has(name);
  }

  /** The storages open now (for health and metrics). */
  openBackends(): StorageBackend[] {
    const open: StorageBackend[] = [];
    for (const entry of this.entries.values()) if (entry.backend !== undefined) open.push(entry.backend);
    return open;
  }

  get openSources(): number {
    return this.openCount;
  }

  /** A lease on an open source at once, or undefined when it must be opened first (or is not served). */
  tryAcquire(name: string): Lease | undefined {
    const entry = this.entries.get(name);
    if (entry?.backend === undefined || entry.backend.revalidationDue?.() === true) return undefined;
    return this.lease(entry, entry.backend);
  }

  /** A lease on a source, opened if it is not; concurrent first requests share one opening. */
  async acquire(name: string): Promise<Lease | undefined> {
    const entry = this.entries.get(name);
    if (entry === undefined) return undefined;
    if (entry.backend !== undefined) return this.current(name, entry, entry.backend);
    if (entry.failed !== undefined && Date.now() < entry.failed.until) throw entry.failed.error;
    // Counted before the opening ends, so that the room made for it never closes what it opens.
    entry.users += 1;
    try {
      const backend = await (entry.opening ??= this.openEntry(entry));
      entry.users -= 1;
      return this.lease(entry, backend);
    } catch (error) {
      entry.users -= 1;
      throw error;
    }
  }

  /**
   * A lease on an open source whose data is still what was opened (a remote archive asks its server now and
   * then): one replaced at its origin is opened anew, in the same place of the catalog, while requests under
   * way finish on the old one.
   */
  private async current(name: string, entry: Entry, backend: StorageBackend): Promise<Lease | undefined> {
    const lease = this.lease(entry, backend);
    if (backend.revalidationDue?.() !== true) return lease;
    let state: 'current' | 'replaced';
    try {
      state = await backend.revalidate!();
    } catch (error) {
      lease.release();
      throw named(name, 'cannot be served now', error);
    }
    if (state === 'current') return lease;
    if (this.entries.get(name) === entry && !entry.pinned) {
      entry.retired = true;
      this.entries.set(name, newEntry(entry.spec));
      this.options.onEvent?.({ type: 'replaced', name });
    }
    lease.release();
    if (entry.pinned) {
      throw Object.assign(
        new Error(
          `the source "${name}" was replaced at ${entry.spec.origin} and was opened on the command line; restart Quarry to serve the new one`,
        ),
        { status: 503, retryAfter: 60 },
      );
    }
    return this.acquire(name);
  }

  private async openEntry(entry: Entry): Promise<StorageBackend> {
    if (this.closed) throw new SourceOpenFailedError('the server is stopping', 503, 1);
    const started = performance.now();
    try {
      const backend = await this.opener(entry.spec as S);
      entry.backend = backend;
      entry.failed = undefined;
      entry.aiidaVersion = backend.aiidaVersion;
      entry.exportVersion = backend.exportVersion ?? null;
      entry.kind = backend.kind;
      this.openCount += 1;
      entry.holder = {
        files: filesOf(backend.kind),
        busy: () => entry.users > 0,
        close: () => void this.closeEntry(entry),
      };
      this.files.add(entry.holder);
      this.options.onEvent?.({ type: 'opened', name: entry.spec.name, ms: performance.now() - started });
      void this.countNodes(entry, backend).then(() =>
        this.options.facts?.write(entry.spec, {
          nodes: entry.nodes,
          aiidaVersion: entry.aiidaVersion,
          exportVersion: entry.exportVersion,
          kind: backend.kind,
        }),
      );
      this.makeRoom();
      return backend;
    } catch (error) {
      const problem = error instanceof Error ? error : new Error(String(error));
      this.options.onEvent?.({ type: 'failed', name: entry.spec.name, error: problem });
      const failure = openingRefused(entry.spec.name, problem);
      // Only a verdict on the source is kept; what may pass by itself is tried again at the next request.
      if (!(failure instanceof SourceOpenFailedError)) throw failure;
      entry.failed = { error: failure, until: Date.now() + FAILED_OPEN_KEPT_MS };
      throw failure;
    } finally {
      entry.opening = undefined;
    }
  }

  /** The index's node count: read once, from an archive only (its data never changes). */
  private async countNodes(entry: Entry, backend: StorageBackend) {
    if (entry.nodes !== null || backend.kind !== 'archive') return;
    try {
      const rows = await backend.db.values({
        sql: 'SELECT count(*) FROM db_dbnode',
        params: [],
        pointLookup: true,
      });
      entry.nodes = Number(rows[0]?.[0] ?? 0);
    } catch {
      // The index says "unknown"; the source answers its requests all the same.
    }
  }

  private lease(entry: Entry, backend: StorageBackend): Lease {
    entry.users += 1;
    entry.lastUsed = ++this.clock;
    if (entry.holder !== undefined) this.files.touch(entry.holder);
    let released = false;
    return {
      backend,
      name: entry.spec.name,
      release: () => {
        if (released) return;
        released = true;
        entry.users -= 1;
        entry.lastUsed = ++this.clock;
        if (entry.holder !== undefined) this.files.touch(entry.holder);
        if (entry.users === 0 && entry.retired) void this.closeEntry(entry);
        else {
          this.makeRoom();
          this.files.makeRoom();
        }
      },
    };
  }

  /** Close least recently used sources no request holds until no more than the bound are open. */
  private makeRoom() {
    if (this.openCount <= this.maxOpen) return;
    const idle = [...this.entries.values()]
      .filter((e) => e.backend !== undefined && e.users === 0 && !e.pinned)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    for (const entry of idle) {
      if (this.openCount <= this.maxOpen) break;
      void this.closeEntry(entry);
    }
  }

  private async closeEntry(entry: Entry) {
    const backend = entry.backend;
    if (backend === undefined) {
      // Retired while it opens: closed once the opening ends.
      if (entry.opening !== undefined && entry.retired) {
        entry.opening.then(
          () => {
            if (entry.users === 0) void this.closeEntry(entry);
          },
          () => undefined,
        );
      }
      return;
    }
    entry.backend = undefined;
    this.openCount -= 1;
    if (entry.holder !== undefined) this.files.remove(entry.holder);
    entry.holder = undefined;
    try {
      await backend.close();
    } finally {
      this.options.onEvent?.({ type: 'closed', name: entry.spec.name });
    }
  }

  /** What the index shows, in catalog order; `filter` keeps names containing it (without case). */
  list(filter?: string): SourceInfo[] {
    const needle = filter?.toLowerCase();
    const out: SourceInfo[] = [];
    for (const entry of this.entries.values()) {
      if (needle !== undefined && !entry.spec.name.toLowerCase().includes(needle)) continue;
      const known = entry.kind !== undefined || entry.pinned;
      // Not opened here: what another serving process of this server learnt of it, if one opened it.
      const shared = known ? undefined : this.options.facts?.read(entry.spec);
      if (shared?.thisRun === true) {
        entry.kind = shared.kind;
        entry.nodes ??= shared.nodes;
        entry.aiidaVersion ??= shared.aiidaVersion;
        entry.exportVersion ??= shared.exportVersion;
      }
      out.push({
        name: entry.spec.name,
        kind: entry.kind ?? shared?.kind ?? entry.spec.kind,
        origin: entry.spec.origin,
        open: entry.backend !== undefined,
        opened: known || shared?.thisRun === true,
        nodes: entry.nodes ?? shared?.nodes ?? null,
        aiidaVersion: entry.aiidaVersion ?? shared?.aiidaVersion ?? null,
        exportVersion: entry.exportVersion ?? shared?.exportVersion ?? null,
      });
    }
    return out;
  }

  /** Close every source, pinned ones included; requests still holding one finish on it first. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => (e.opening ?? Promise.resolve()).catch(() => undefined)));
    await Promise.all(all.map((e) => this.closeEntry(e)));
  }
}
