/**
 * A portal's sources over time: what the folders and the sources file name at start, then again whenever a
 * folder changes (scanned every few seconds) or the sources file is to be read again (SIGHUP). The catalog
 * is made to match; requests under way finish on what they hold.
 */
import { scanFolders } from './discover.js';
import { checkNames, nameProblem, SourceNameError } from './names.js';
import type { SourceCatalog } from './catalog.js';
import { readSourcesFile, type SourcesFile } from './sources-file.js';
import type { PortalSpec } from './spec.js';

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
  start(): void {
    if (this.options.sourcesFile !== undefined) this.file = readSourcesFile(this.options.sourcesFile);
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
      const found = scanFolders([folder]);
      if (atStart && found.length === 0) {
        throw new EmptyFolderError(
          `${folder} is not a core.sqlite_dos storage folder (it has no database.sqlite) and holds no .aiida archive or core.sqlite_dos folder at any depth; nothing to serve there`,
        );
      }
      return found;
    });
    const fromFileFolders = this.file.folders.flatMap(({ folder, queryTimeout }) =>
      scanFolders([folder]).map((s) => (queryTimeout === undefined ? s : { ...s, queryTimeout })),
    );
    return [...(this.options.specs ?? []), ...this.file.specs, ...folders, ...fromFileFolders];
  }

  /**
   * Look again: sources added, removed or replaced since are served so. While serving, a name that clashes is
   * left out with a line saying why (the first source with it keeps it), not an error that stops the server.
   */
  rescan(): void {
    const seen = new Set(this.options.taken.map((n) => n.toLowerCase()));
    const kept: PortalSpec[] = [];
    for (const spec of this.current()) {
      const problem = nameProblem(spec.name, this.options.reserved);
      const key = spec.name.toLowerCase();
      if (problem !== undefined || seen.has(key)) {
        if (!this.catalog.has(spec.name) || this.catalog.spec(spec.name)?.origin !== spec.origin)
          this.warnOnce(`${spec.origin}: ${problem ?? `another source is named "${spec.name}"`}; not served`);
        continue;
      }
      seen.add(key);
      kept.push(spec);
    }
    const changes = this.catalog.update(kept);
    for (const name of changes.added) this.options.log(`source ${name} added`);
    for (const name of changes.removed) this.options.log(`source ${name} removed`);
    for (const name of changes.replaced) this.options.log(`source ${name} replaced; served anew`);
  }

  private readonly warned = new Set<string>();
  private warnOnce(line: string) {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.options.log(line);
  }

  /** SIGHUP: read the sources file again; a file that cannot be read leaves the sources as they are. */
  reload(): void {
    if (this.options.sourcesFile === undefined) return this.rescan();
    try {
      this.file = readSourcesFile(this.options.sourcesFile);
    } catch (error) {
      this.options.log(`${(error as Error).message}; the sources stay as they were`);
      return;
    }
    this.options.log(`read ${this.options.sourcesFile} again`);
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
