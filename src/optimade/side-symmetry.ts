/**
 * The side table's second pass: each structure's space group (symmetry.ts). Finding a group costs about
 * fifteen times the rest of a row, so the table is served as soon as its first pass is written (side-rows.ts),
 * with the symmetry columns empty, and this pass fills them afterwards: its rows go to part files of their own
 * (`symmetry`: sid and the five columns), and are then written into a copy of the served table, which gets the
 * symmetry indexes and counts and is renamed over it. The served file is never written.
 */
import BetterSqlite3 from 'better-sqlite3';
import { entryOf } from './structure-entry.js';
import { nodeOf, SYMMETRY_COLUMNS, SYMMETRY_INDEXES } from './side-rows.js';
import { SymmetryFinder, type Symmetry } from './symmetry.js';

const PART_TABLE = `CREATE TABLE symmetry (sid INTEGER PRIMARY KEY, ${SYMMETRY_COLUMNS.join(', ')})`;

/** A connection to a part file of the symmetry pass (new), set to write fast. */
export function openSymmetryPart(file: string): BetterSqlite3.Database {
  const out = new BetterSqlite3(file);
  try {
    out.pragma('journal_mode = OFF');
    out.pragma('synchronous = OFF');
    out.exec(PART_TABLE);
    return out;
  } catch (error) {
    out.close();
    throw error;
  }
}

/**
 * Writes the symmetry of source rows (side-rows.ts's COLUMNS) into a part file, a transaction per call. The
 * groups are found in a thread of the writer's own (symmetry.ts's SymmetryFinder), ended by `close`.
 */
export class SymmetryWriter {
  /** Structures whose symmetry was looked for (with or without a group found). */
  count = 0;
  private readonly finder = new SymmetryFinder();
  private readonly write: (rows: [number, Symmetry][]) => void;

  constructor(out: BetterSqlite3.Database) {
    const insert = out.prepare(`INSERT INTO symmetry VALUES (${new Array(6).fill('?').join(', ')})`);
    this.write = out.transaction((rows: [number, Symmetry][]) => {
      for (const [sid, symmetry] of rows)
        insert.run(
          sid,
          symmetry.number,
          symmetry.hermannMauguin,
          symmetry.hall,
          symmetry.operations ? JSON.stringify(symmetry.operations) : null,
          JSON.stringify(symmetry.wyckoffs),
        );
    });
  }

  /** Structures whose analysis ran past its budget (they got no group). */
  get overran(): number {
    return this.finder.overran;
  }

  async add(rows: unknown[][]): Promise<void> {
    const found: [number, Symmetry][] = [];
    for (const row of rows) {
      // A node the first pass left out has no row to fill.
      const entry = entryOf(nodeOf(row));
      if (entry === undefined) continue;
      this.count += 1;
      const symmetry = await this.finder.find(entry);
      // A structure with no group keeps its nulls: nothing to write.
      if (symmetry !== null) found.push([entry._quarry_pk, symmetry]);
    }
    this.write(found);
  }

  close(): Promise<void> {
    return this.finder.close();
  }
}

/**
 * `out` (a copy of a served table at `version`) made whole: the parts' symmetry written in, its indexes and
 * counts built, the table marked complete. A copy of another version (a live source's table rebuilt meanwhile)
 * is refused.
 */
export function finishSymmetry(out: BetterSqlite3.Database, parts: string[], version: string): void {
  const at = out.prepare("SELECT value FROM side_meta WHERE key = 'version'").pluck().get();
  if (at !== version) throw new Error('the OPTIMADE table was built again while its symmetry was found');
  // Copied from a table another process completed meanwhile: it is whole already.
  if (out.prepare("SELECT value FROM side_meta WHERE key = 'symmetry'").pluck().get() === 'complete') return;
  out.pragma('journal_mode = OFF');
  out.pragma('synchronous = OFF');
  out.pragma('cache_size = -262144');
  out.pragma('temp_store = MEMORY');
  const set = SYMMETRY_COLUMNS.map((c) => `${c} = y.${c}`).join(', ');
  parts.forEach((file, i) => {
    out.prepare(`ATTACH DATABASE ? AS part${i}`).run(file);
    out.exec(`UPDATE structures SET ${set} FROM part${i}.symmetry AS y WHERE y.sid = structures.sid`);
    out.exec(`DETACH DATABASE part${i}`);
  });
  for (const sql of SYMMETRY_INDEXES) out.exec(sql);
  out.exec(
    "INSERT INTO side_counts SELECT 'space_group_it_number', space_group_it_number, count(*) FROM structures WHERE space_group_it_number IS NOT NULL GROUP BY space_group_it_number",
  );
  out.prepare("UPDATE side_meta SET value = 'complete' WHERE key = 'symmetry'").run();
  out.pragma('analysis_limit = 1000');
  out.exec('ANALYZE');
}
