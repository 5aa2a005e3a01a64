/**
 * A portal's sources over time: what the folders and the sources file name at start, then again whenever a
 * folder changes (scanned every few seconds) or the sources file is to be read again (SIGHUP). The catalog
 * is made to match; requests under way finish on what they hold.
 */
import { FolderScanError, scanFolders } from './discover.js';
import { assignNames, checkNames, SourceNameError } from './names.js';
import type { SourceCatalog } from './catalog.js';
import type { SourcesFile } from './sources-file.js';
import { loadSourcesFile } from './sources-file-reader.js';
import type { PortalSpec } from './spec.js';

/** Changes past this many are said in one line. */
const MANY = 20;

export interface PortalOptions {
  folders: readonly string[];
  /** Sources named one by one on the command line, opened on demand (archives at URLs). */
  specs?: readonly PortalSpec[];
  sourcesFile?: string;
  /** `--optimade-default`: the source of the plain `/optimade/v1/`, before the sources file's `optimade_default`. */
  optimadeDefault?: string;
  reserved: ReadonlySet<string>;
  /** Names already taken (sources opened at start, named on the command line). */
  taken: readonly string[];
  /** Told what changed and what could not be served, one sentence each. */
  log: (line: string) => void;
}

export class Portal {
  private file: SourcesFile = { specs: [], folders: [] };
  private timer?: ReturnType<typeof setInterval>;

  constructor(
    private readonly catalog: SourceCatalog<PortalSpec>,
    private readonly options: PortalOptions,
  ) {}

  /** The sources at start: a clash of names or a name that shadows a route is an error that names both. */
  async start(): Promise<void> {
    if (this.options.sourcesFile !== undefined) this.file = await loadSourcesFile(this.options.sourcesFile);
    const specs = this.current(true);
    checkNames(
      [
        ...this.options.taken.map((name) => ({ name, origin: `the source ${name} on the command line` })),
        ...specs.map((s) => ({ name: s.name, origin: s.origin })),
      ],
      this.options.reserved,
    );
    this.catalog.add(specs);
    this.chooseOptimadeDefault(true);
  }

  /**
   * The source of the plain `/optimade/v1/`: the command line's choice, else the sources file's. At start a name
   * no source has is an error; later (a source removed) the first answers until it is back.
   */
  private chooseOptimadeDefault(atStart: boolean): void {
    const name = this.options.optimadeDefault ?? this.file.optimadeDefault;
    if (atStart && name !== undefined && !this.catalog.has(name))
      throw new SourceNameError(
        `${this.options.optimadeDefault === undefined ? `${this.options.sourcesFile}: optimade_default` : '--optimade-default'} names ${name}, which is not a source served; the sources: ${this.catalog.names().join(', ')}`,
      );
    this.catalog.optimadeDefault = name;
  }

  /** `atStart`: a folder with nothing to serve is most likely a wrong path, said at once. */
  private current(atStart = false): PortalSpec[] {
    const folders = this.options.folders.flatMap((folder) => {
      const found = scanFolders([folder], this.options.log);
      if (atStart && found.length === 0) {
        throw new EmptyFolderError(
          `${folder} is not a core.sqlite_dos storage folder (it has no database.sqlite) and holds no AiiDA archive (a zip or tar.gz holding metadata.json, whatever its name) or core.sqlite_dos folder at any depth; nothing to serve there`,
        );
      }
      return found;
    });
    const fromFileFolders = this.file.folders.flatMap(({ folder, queryTimeout }) =>
      scanFolders([folder], this.options.log).map((s) =>
        queryTimeout === undefined ? s : { ...s, queryTimeout },
      ),
    );
    return [...(this.options.specs ?? []), ...this.file.specs, ...folders, ...fromFileFolders];
  }

  /**
   * Look again: sources added, removed or replaced since are served so. While serving, a name that clashes is
   * left out with a line saying why (the first source with it keeps it), not an error that stops the server.
   */
  rescan(): void {
    let specs: PortalSpec[];
    try {
      specs = this.current();
    } catch (error) {
      if (!(error instanceof FolderScanError)) throw error;
      // Said once while it lasts, not at every look.
      this.scanProblem(`${error.message}; the sources stay as they were until it can be read`);
      return;
    }
    this.scanProblem(undefined);
    const served = new Map<string, string>();
    for (const name of this.catalog.names()) served.set(name, this.catalog.spec(name)!.origin);
    const { kept, refused } = assignNames(specs, served, this.options.taken, this.options.reserved);
    // Each refusal said once while it lasts: again if it comes back after it was resolved.
    for (const line of refused) if (!this.warned.has(line)) this.options.log(line);
    this.warned = new Set(refused);
    const changes = this.catalog.update(kept);
    this.tell(changes.added, 'added');
    this.tell(changes.removed, 'removed');
    this.tell(changes.replaced, 'replaced; served anew');
  }

  /** A line per source changed; one line for many (a sources file of thousands read again). */
  private tell(names: string[], what: string) {
    if (names.length <= MANY) for (const name of names) this.options.log(`source ${name} ${what}`);
    else this.options.log(`${names.length} sources ${what} (${names.slice(0, 5).join(', ')}, ...)`);
  }

  private lastScanProblem: string | undefined;
  private scanProblem(line: string | undefined) {
    if (line !== undefined && line !== this.lastScanProblem) this.options.log(line);
    else if (line === undefined && this.lastScanProblem !== undefined)
      this.options.log('the folders can be read again');
    this.lastScanProblem = line;
  }

  private warned = new Set<string>();

  private reloading?: Promise<void>;
  private reloadAgain = false;

  /**
   * SIGHUP: read the sources file again, off the serving thread; the sources served stay as they are until the
   * new list is whole, and stay so when it cannot be read. Signals during a reading are one more reading after it.
   */
  reload(): Promise<void> {
    if (this.reloading !== undefined) {
      this.reloadAgain = true;
      return this.reloading;
    }
    this.reloading = this.readAgain().finally(() => {
      this.reloading = undefined;
      if (this.reloadAgain) {
        this.reloadAgain = false;
        void this.reload();
      }
    });
    return this.reloading;
  }

  private async readAgain(): Promise<void> {
    const file = this.options.sourcesFile;
    if (file === undefined) return this.rescan();
    try {
      this.file = await loadSourcesFile(file);
    } catch (error) {
      this.options.log(`${(error as Error).message}; the sources stay as they were`);
      return;
    }
    this.options.log(`read ${file} again`);
    this.rescan();
    this.chooseOptimadeDefault(false);
  }

  /** Scan the folders every `seconds` (0: never). */
  watch(seconds: number): void {
    if (seconds <= 0 || (this.options.folders.length === 0 && this.file.folders.length === 0)) return;
    this.timer = setInterval(() => {
      try {
        this.rescan();
      } catch (error) {
        this.options.log(`the folders could not be scanned: ${(error as Error).message}`);
      }
    }, seconds * 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export { SourceNameError };

/** A folder given to serve holds nothing to serve. */
export class EmptyFolderError extends Error {
  override name = 'EmptyFolderError';
}
