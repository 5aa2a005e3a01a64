/** Writes the generated provenance graph into an archive database, in large transactions. */
import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { FileStore } from './file-store.js';
import type { Rng } from './prng.js';
import { ARCHIVE_INDEXES, ARCHIVE_TABLES } from '../domain/sqlite-zip-schema.js';

/** The generated history spans 2019-03-04 to 2023-11-02, like the archives seen in the field. */
const START = Date.UTC(2019, 2, 4, 10, 31, 13, 783);
const END = Date.UTC(2023, 10, 2, 6, 26, 33, 39);

export type RepoTree = { o: Record<string, RepoTree | { k: string }> };

export interface NodeSpec {
  nodeType: string;
  processType?: string | null;
  label?: string;
  description?: string;
  attributes?: Record<string, unknown>;
  extras?: Record<string, unknown>;
  files?: Record<string, Buffer | string>;
  computerId?: number | null;
  userId: number;
}

export function formatTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  // Microseconds: milliseconds from the clock, then three digits of our own so values look like real ones.
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${String(ms % 997).padStart(3, '0')}`;
}

export class GraphBuilder {
  readonly db: BetterSqlite3.Database;
  /** Repository files by key, on disk (see FileStore). */
  readonly files: FileStore;
  private nodeId = 0;
  private linkId = 0;
  private membershipId = 0;
  private commentId = 0;
  private logId = 0;
  private pending = 0;
  private readonly stmt: Record<string, BetterSqlite3.Statement>;

  constructor(
    file: string,
    private readonly rng: Rng,
    private readonly plannedNodes: number,
  ) {
    this.files = new FileStore(`${file}.files`);
    this.db = new BetterSqlite3(file);
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    for (const sql of ARCHIVE_TABLES) this.db.exec(sql);
    this.stmt = {
      node: this.db.prepare('INSERT INTO db_dbnode VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)'),
      link: this.db.prepare('INSERT INTO db_dblink VALUES (?,?,?,?,?)'),
      member: this.db.prepare('INSERT INTO db_dbgroup_dbnodes VALUES (?,?,?)'),
      comment: this.db.prepare('INSERT INTO db_dbcomment VALUES (?,?,?,?,?,?,?)'),
      log: this.db.prepare('INSERT INTO db_dblog VALUES (?,?,?,?,?,?,?,?)'),
    };
    this.db.exec('BEGIN');
  }

  get nodeCount() {
    return this.nodeId;
  }

  /** Creation time of the next node: spread evenly over the span, with a little jitter. */
  private clock(): number {
    const step = (END - START) / Math.max(this.plannedNodes, 1);
    return Math.floor(START + this.nodeId * step + this.rng.next() * step * 0.5);
  }

  private tick() {
    if (++this.pending >= 20_000) {
      this.db.exec('COMMIT');
      this.db.exec('BEGIN');
      this.pending = 0;
    }
  }

  addFile(content: Buffer | string): string {
    return this.files.add(typeof content === 'string' ? Buffer.from(content) : content);
  }

  private repositoryMetadata(files: Record<string, Buffer | string> | undefined): string {
    if (!files || Object.keys(files).length === 0) return '{}';
    const root: RepoTree = { o: {} };
    for (const [path, content] of Object.entries(files)) {
      const parts = path.split('/');
      let dir = root;
      for (const part of parts.slice(0, -1)) dir = (dir.o[part] ??= { o: {} }) as RepoTree;
      dir.o[parts[parts.length - 1] as string] = { k: this.addFile(content) };
    }
    return JSON.stringify(root);
  }

  addNode(spec: NodeSpec): { id: number; uuid: string; ctime: number } {
    const ctime = this.clock();
    const id = ++this.nodeId;
    const uuid = this.rng.uuid();
    const mtime = ctime + (this.rng.chance(0.3) ? this.rng.int(1, 5000) : 0);
    this.stmt.node!.run(
      id,
      uuid,
      spec.nodeType,
      spec.processType ?? null,
      spec.label ?? '',
      spec.description ?? '',
      formatTime(ctime),
      formatTime(mtime),
      JSON.stringify(spec.attributes ?? {}),
      JSON.stringify({ ...(spec.extras ?? {}), _aiida_hash: this.hashOf(uuid) }),
      this.repositoryMetadata(spec.files),
      spec.computerId ?? null,
      spec.userId,
    );
    this.tick();
    return { id, uuid, ctime };
  }

  private hashOf(uuid: string): string {
    return createHash('sha256').update(uuid).digest('hex');
  }

  addLink(input: number, output: number, type: string, label: string) {
    this.stmt.link!.run(++this.linkId, input, output, label, type);
    this.tick();
  }

  addToGroup(groupId: number, nodeId: number) {
    this.stmt.member!.run(++this.membershipId, nodeId, groupId);
    this.tick();
  }

  addComment(nodeId: number, userId: number, content: string, time: number) {
    this.stmt.comment!.run(
      ++this.commentId,
      this.rng.uuid(),
      nodeId,
      formatTime(time),
      formatTime(time + 60_000),
      userId,
      content,
    );
    this.tick();
  }

  addLog(nodeId: number, logger: string, level: string, message: string, time: number) {
    this.stmt.log!.run(++this.logId, this.rng.uuid(), formatTime(time), logger, level, nodeId, message, '{}');
    this.tick();
  }

  insert(table: string, values: unknown[]) {
    this.db.prepare(`INSERT INTO ${table} VALUES (${values.map(() => '?').join(',')})`).run(...values);
  }

  /** Commit, build the indexes and compact the file. */
  finish() {
    this.db.exec('COMMIT');
    for (const sql of ARCHIVE_INDEXES) this.db.exec(sql);
    this.db.exec('VACUUM');
    this.db.close();
  }
}
