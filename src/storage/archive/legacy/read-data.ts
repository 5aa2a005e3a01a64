/**
 * data.json read as a stream (@streamparser/json: one record at a time, never the whole text), each record
 * staged as it comes (staging.ts). Its shape is checked on the way: a section that is not what the export
 * version promises stops the conversion with a line saying which.
 */
import { TokenParser } from '@streamparser/json';
import { oneLine } from '../zip.js';
import type BetterSqlite3 from 'better-sqlite3';
import type { Readable } from 'node:stream';
import { entityName, NODE_SECTIONS, type NodeSection, type Stage } from './staging.js';
import { exactTokenizer, toJson } from './exact-json.js';
import { LegacyArchiveError, MAX_DESCRIPTION_CHARS, MAX_LABEL_CHARS } from './limits.js';
import { PythonFloats } from './python-floats.js';
import { pastBound, RecordWatch, recordName } from './record-bounds.js';
import { TokenBoundError } from './token-bounds.js';

const PATHS = [
  '$.export_data.*.*',
  '$.links_uuid.*',
  '$.groups_uuid.*.*',
  ...NODE_SECTIONS.map((s) => `$.${s}.*`),
];

export interface StagedCounts {
  nodes: number;
  links: number;
  sections: Set<string>;
  /** NaN and infinities (Python's json) read as null. */
  nonFinite: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v.constructor?.name === 'RawJson');

function pkOf(key: unknown, where: string): number {
  const pk = Number(key);
  if (typeof key !== 'string' || !Number.isSafeInteger(pk) || String(pk) !== key) {
    throw new LegacyArchiveError(`data.json: ${where} has the key ${JSON.stringify(key)}, not an integer id`);
  }
  return pk;
}

/** Stages data.json; `onBytes` is told how many bytes were read. */
export async function stageData(
  stream: Readable,
  stage: Stage,
  onBytes?: (done: number) => void,
): Promise<StagedCounts> {
  const counts: StagedCounts = { nodes: 0, links: 0, sections: new Set(), nonFinite: 0 };
  const insertNode = stage.prepare('INSERT OR REPLACE INTO node (pk, uuid, type, rec) VALUES (?, ?, ?, ?)');
  const insertEntity = stage.prepare('INSERT OR REPLACE INTO entity (kind, pk, rec) VALUES (?, ?, ?)');
  const insertSection = Object.fromEntries(
    NODE_SECTIONS.map((s) => [s, stage.prepare(`INSERT OR REPLACE INTO ${s} (pk, rec) VALUES (?, ?)`)]),
  ) as Record<NodeSection, BetterSqlite3Statement>;
  const insertLink = stage.prepare('INSERT INTO link (rec) VALUES (?)');
  const insertMember = stage.prepare('INSERT INTO member (grp, node) VALUES (?, ?)');

  const parser = new TokenParser({ paths: PATHS, keepStack: false });
  parser.onValue = ({ value, key, stack }) => {
    const section = stack[1]?.key;
    if (typeof section !== 'string') return;
    counts.sections.add(section);
    if (section === 'export_data') {
      const entity = stack[2]?.key;
      if (typeof entity !== 'string') throw new LegacyArchiveError('data.json: export_data is not an object');
      const name = entityName(entity);
      if (name === undefined) return; // Link and Attribute entries of 0.3-0.6 were never used.
      const where = `export_data.${entity}`;
      if (!isRecord(value)) throw new LegacyArchiveError(`data.json: an entry of ${where} is not an object`);
      const pk = pkOf(key, where);
      checkTexts(value, recordName(section, entity, pk));
      if (name === 'Node') {
        const uuid = value.uuid;
        if (typeof uuid !== 'string') throw new LegacyArchiveError(`data.json: node ${pk} has no uuid`);
        const type = typeof value.type === 'string' ? value.type : value.node_type;
        insertNode.run(pk, uuid, typeof type === 'string' ? type : null, toJson(value));
        counts.nodes++;
      } else insertEntity.run(name, pk, toJson(value));
    } else if (section === 'links_uuid') {
      if (!isRecord(value))
        throw new LegacyArchiveError('data.json: an entry of links_uuid is not an object');
      insertLink.run(toJson(value));
      counts.links++;
    } else if (section === 'groups_uuid') {
      const group = stack[2]?.key;
      if (typeof group !== 'string') throw new LegacyArchiveError('data.json: groups_uuid is not an object');
      insertMember.run(group, typeof value === 'string' ? value : null);
    } else if ((NODE_SECTIONS as readonly string[]).includes(section)) {
      const pk = pkOf(key, section);
      // The steps set and read keys of them: a string or a list there is no node's (nor is it served as one).
      if (value !== null && !isRecord(value)) {
        throw new LegacyArchiveError(
          `data.json: ${recordName(section, undefined, pk)} are ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}, not an object; the archive is damaged: export it again`,
        );
      }
      insertSection[section as NodeSection].run(pk, toJson(value));
    }
  };
  const watch = new RecordWatch();
  const tokenizer = exactTokenizer(
    parser,
    () => 'data.json',
    true,
    (info) => watch.token(info),
  );
  const floats = new PythonFloats();
  let read = 0;
  let pending = 0;
  stage.exec('BEGIN');
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      parsing(() => tokenizer.write(floats.filter(bytes)));
      read += bytes.length;
      pending += bytes.length;
      if (pending > 16 << 20) {
        // Commits now and then keep SQLite's page cache, not a transaction's, holding the staged rows.
        stage.exec('COMMIT; BEGIN');
        pending = 0;
        onBytes?.(read);
      }
    }
    if (read === 0) throw new LegacyArchiveError('data.json is empty');
    parsing(() => {
      if (floats.rest().length > 0) tokenizer.write(floats.rest());
      if (!tokenizer.isEnded) tokenizer.end();
    });
    counts.nonFinite = floats.count;
    stage.exec('COMMIT');
  } catch (error) {
    if (stage.inTransaction) stage.exec('ROLLBACK');
    if (error instanceof TokenBoundError) {
      throw pastBound(`has ${error.what} in ${watch.where()}, the bound on one value`);
    }
    throw error;
  }
  onBytes?.(read);
  return counts;
}

/** A label within AiiDA's column, a description within what a listing can carry. */
function checkTexts(record: Record<string, unknown>, name: string): void {
  const label = record.label ?? record.name;
  if (typeof label === 'string' && label.length > MAX_LABEL_CHARS) {
    throw pastBound(
      `has a label of ${label.length} characters in ${name}, past the ${MAX_LABEL_CHARS} AiiDA allows`,
    );
  }
  const description = record.description;
  if (typeof description === 'string' && description.length > MAX_DESCRIPTION_CHARS) {
    throw pastBound(
      `has a description of ${description.length} characters in ${name}, past ${MAX_DESCRIPTION_CHARS}`,
    );
  }
}

type BetterSqlite3Statement = BetterSqlite3.Statement<unknown[]>;

/**
 * Runs a step of the parser: what it throws says the text is not JSON, but for the refusals of the records'
 * checks and the database's errors (a full disk), said as they are. Errors of the stream itself (a read broken by
 * the network, the zip's inflation) come from elsewhere and are said as what they are, by the caller.
 */
function parsing(step: () => void): void {
  try {
    step();
  } catch (error) {
    if (error instanceof LegacyArchiveError || error instanceof TokenBoundError) throw error;
    if (String((error as { code?: unknown }).code ?? '').startsWith('SQLITE')) throw error;
    const message =
      error instanceof TypeError && /encoded data was not valid/i.test(error.message)
        ? 'it is not UTF-8'
        : ((error as Error).message ?? String(error));
    throw new LegacyArchiveError(
      `data.json is not valid JSON (${oneLine(message).slice(0, 200)}); the archive is damaged`,
    );
  }
}
