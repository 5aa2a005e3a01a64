/**
 * A legacy archive (export version 0.1-0.13) -> the SQLite copy of an AiiDA 2.x archive: metadata.json
 * checked, data.json streamed into a staging file (read-data.ts), repository files hashed (repository.ts),
 * then every record taken through the version steps (steps-early.ts, steps.ts) into the copy
 * (sqlite-copy.ts). Memory holds one record at a time; the staging file is removed at the end.
 */
import { rm } from 'node:fs/promises';
import type { ProgressCallback } from '../../observe.js';
import type { LegacyContainer } from './container.js';
import { parseExact, toJson } from './exact-json.js';
import { LegacyArchiveError, MAX_JSON_DEPTH, MAX_METADATA_BYTES } from './limits.js';
import { nestsDeeper, shownValue } from '../zip.js';
import { stageData } from './read-data.js';
import { stageFiles, stageRepositoryMetadata } from './repository.js';
import { createCopy, finishCopy, inserter, NODE_UUID_INDEX, type Copy } from './sqlite-copy.js';
import { indexStage, openStage, type Stage } from './staging.js';
import { copyLinks, writeLinks, writeMembers } from './links-groups.js';
import { nodeSql } from './node-sql.js';
import { computerTo04, groupTo04, nodeTo04 } from './steps-early.js';
import {
  attributesTo07,
  commentRow,
  computerRow,
  conversionTime,
  groupRow,
  logRow,
  nodeRow,
  nodeTypeAt12,
  processTypeAt12,
  storedTime,
  userRow,
  withTimezones,
} from './steps.js';
import { OLD_TRAJECTORY_TYPE, withSymbols } from './trajectory-symbols.js';
import { isLegacyVersion, looksLegacy, minorOf } from './versions.js';

type Rec = Record<string, unknown>;

/** metadata.json of a legacy archive, checked: an object whose export_version is 0.1 to 0.13. */
export async function legacyMetadata(container: LegacyContainer): Promise<Rec & { export_version: string }> {
  const size = await container.size('metadata.json');
  if (size === undefined) {
    throw new LegacyArchiveError(
      "no metadata.json, so it is not an AiiDA archive; create one with 'verdi archive create'",
    );
  }
  if (size > MAX_METADATA_BYTES)
    throw new LegacyArchiveError(`metadata.json is ${size} bytes, too large to be one`);
  let metadata: unknown;
  try {
    metadata = JSON.parse((await container.read('metadata.json')).toString('utf8'));
  } catch (error) {
    throw new LegacyArchiveError(
      `metadata.json is not JSON (${(error as Error).message}); the archive is damaged`,
    );
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new LegacyArchiveError('metadata.json is not a JSON object; the archive is damaged');
  }
  if (nestsDeeper(metadata, MAX_JSON_DEPTH)) {
    throw new LegacyArchiveError(
      `metadata.json nests values more than ${MAX_JSON_DEPTH} levels deep, which no AiiDA archive does; the archive is damaged`,
    );
  }
  const version = (metadata as Rec).export_version;
  if (!isLegacyVersion(version)) {
    const shown = shownValue(version);
    throw new LegacyArchiveError(
      version === undefined
        ? 'metadata.json has no export_version, so this is not an archive Quarry can read'
        : looksLegacy(version)
          ? `unknown export version ${shown}; Quarry reads 0.1 to 0.13 and main_0000 to main_0001`
          : `export version ${shown} in a tar or folder, where only the JSON-based format (0.1 to 0.13) is written`,
    );
  }
  return metadata as Rec & { export_version: string };
}

export interface Conversion {
  warnings: string[];
  nodes: number;
}

/** Converts `container` into a new SQLite file `target`. */
export async function convertLegacy(
  container: LegacyContainer,
  target: string,
  onProgress?: ProgressCallback,
  now = conversionTime(),
): Promise<Conversion> {
  const metadata = await legacyMetadata(container);
  const minor = minorOf(metadata.export_version);
  const dataSize = await container.size('data.json');
  if (dataSize === undefined)
    throw new LegacyArchiveError('data.json is missing (metadata.json is there); the archive is incomplete');
  const stageFile = `${target}.stage`;
  const stage = openStage(stageFile);
  let copy: Copy | undefined;
  try {
    onProgress?.('copy', 0, dataSize);
    const staged = await stageData(await container.openStream('data.json'), stage, (done) =>
      onProgress?.('copy', done, dataSize),
    );
    copy = createCopy(target);
    onProgress?.('files', 0, 1);
    await stageFiles(container, stage, copy, undefined, minor < 4);
    onProgress?.('files', 1, 1);
    indexStage(stage);
    stageRepositoryMetadata(stage);
    onProgress?.('convert', 0, 1);
    const warnings = writeRows(stage, stageFile, copy, minor, now);
    if (staged.nonFinite > 0) {
      warnings.push(
        `${staged.nonFinite} value(s) are NaN or Infinity as Python's json writes them, not JSON; they are served as null`,
      );
    }
    copy
      .prepare('INSERT INTO quarry_legacy_metadata (metadata, warnings) VALUES (?, ?)')
      .run(JSON.stringify(metadata), JSON.stringify(warnings));
    finishCopy(copy);
    onProgress?.('convert', 1, 1);
    const nodes = copy.prepare('SELECT count(*) FROM db_dbnode').pluck().get() as number;
    return { warnings, nodes };
  } finally {
    copy?.close();
    stage.close();
    await rm(stageFile, { force: true });
  }
}

/** Every staged record through the steps of its version into the copy; the warnings to say. */
function writeRows(stage: Stage, stageFile: string, copy: Copy, minor: number, now: string): string[] {
  const warnings: string[] = [];
  // The staged records, for the steps done in SQL (copyLinks); attached outside the transaction, as SQLite asks.
  copy.prepare('ATTACH DATABASE ? AS stage').run(stageFile);
  copy.exec('BEGIN');
  try {
    writeEntities(stage, copy, minor, now);
    warnings.push(...writeNodes(stage, copy, minor, now));
    copy.exec(NODE_UUID_INDEX);
    warnings.push(...(minor < 4 ? writeLinks(stage, copy, minor) : copyLinks(copy, minor)));
    warnings.push(...writeMembers(stage, copy));
    writeDependents(stage, copy, now);
    copy.exec('COMMIT');
  } catch (error) {
    if (copy.inTransaction) copy.exec('ROLLBACK');
    throw asShapeProblem(error);
  } finally {
    copy.exec('DETACH DATABASE stage');
  }
  return warnings;
}

function entities(stage: Stage, kind: string): Iterable<{ pk: number; rec: string }> {
  return stage.prepare('SELECT pk, rec FROM entity WHERE kind = ? ORDER BY pk').iterate(kind) as Iterable<{
    pk: number;
    rec: string;
  }>;
}

const asRec = (text: string): Rec => {
  const value = parseExact(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LegacyArchiveError('data.json: a record is not an object');
  }
  return value as Rec;
};

const json = (value: unknown) => toJson(value);

function writeEntities(stage: Stage, copy: Copy, minor: number, now: string): void {
  const user = inserter(copy, 'db_dbuser', ['id', 'email', 'first_name', 'last_name', 'institution']);
  for (const { pk, rec } of entities(stage, 'User')) user(userRow(pk, asRec(rec)));
  const computer = inserter(copy, 'db_dbcomputer', [
    'id',
    'uuid',
    'label',
    'hostname',
    'description',
    'scheduler_type',
    'transport_type',
    'metadata',
  ]);
  for (const { pk, rec } of entities(stage, 'Computer')) {
    const r = asRec(rec);
    if (minor < 4) computerTo04(r, parseExact);
    const row = computerRow(minor, pk, r);
    computer({ ...row, metadata: json(row.metadata) });
  }
  const group = inserter(copy, 'db_dbgroup', [
    'id',
    'uuid',
    'label',
    'type_string',
    'time',
    'description',
    'extras',
    'user_id',
  ]);
  for (const { pk, rec } of entities(stage, 'Group')) {
    const r = asRec(rec);
    if (minor < 4) groupTo04(r);
    const row = groupRow(minor, pk, r, now);
    group({ ...row, extras: json(row.extras) });
  }
}

interface StagedNode {
  pk: number;
  uuid: string;
  rec: string;
  attrs: string | null;
  extras: string | null;
  aconv: string | null;
  econv: string | null;
  meta: string | null;
}

/** Nodes before 0.7 record by record: their attributes are rewritten (datetimes, legacy process states). */
function writeNodes(stage: Stage, copy: Copy, minor: number, now: string): string[] {
  if (minor >= 7) return copyNodes(copy, minor, now);
  const insert = inserter(copy, 'db_dbnode', [
    'id',
    'uuid',
    'node_type',
    'process_type',
    'label',
    'description',
    'ctime',
    'mtime',
    'attributes',
    'extras',
    'repository_metadata',
    'dbcomputer_id',
    'user_id',
  ]);
  const rows = stage
    .prepare(
      `SELECT n.pk, n.uuid, n.rec, a.rec AS attrs, e.rec AS extras, ac.rec AS aconv, ec.rec AS econv, r.meta
       FROM node n LEFT JOIN node_attributes a USING (pk) LEFT JOIN node_extras e USING (pk)
       LEFT JOIN node_attributes_conversion ac USING (pk) LEFT JOIN node_extras_conversion ec USING (pk)
       LEFT JOIN repo r ON r.pk = n.pk
       ORDER BY n.pk`,
    )
    .iterate() as Iterable<StagedNode>;
  let withoutAttributes = 0;
  const active: string[] = [];
  const symbolsOf = stage.prepare('SELECT symbols FROM trajectory_symbols WHERE uuid = ?').pluck();
  let withoutSymbols = 0;
  for (const node of rows) {
    const rec = JSON.parse(node.rec) as Rec;
    let attributes: string | null = node.attrs;
    let extras: string | null = node.extras;
    if (attributes === null) withoutAttributes++;
    if (minor < 7) {
      let attrs = attributes === null ? undefined : (parseExact(attributes) as Rec | null);
      const aconv = node.aconv === null ? undefined : (parseExact(node.aconv) as Rec);
      if (minor < 4) {
        nodeTo04(rec, attrs ?? undefined, aconv);
        extras = '{}';
        // The same string after nodeTo04 (`data.` -> `node.data.` -> `data.`).
        if (rec.node_type === OLD_TRAJECTORY_TYPE) {
          const symbols = symbolsOf.get(node.uuid) as string | undefined;
          if (symbols !== undefined && attrs) withSymbols(attrs, aconv, JSON.parse(symbols) as string[]);
          else withoutSymbols++;
        }
      }
      if (minor < 6 && attrs) attrs = withTimezones(attrs, aconv) as Rec;
      if (minor < 6 && minor >= 4 && extras !== null && node.econv !== null)
        extras = json(withTimezones(parseExact(extras), parseExact(node.econv)));
      if (attrs) {
        const problem = attributesTo07(minor, String(rec.node_type ?? ''), attrs);
        if (problem) active.push(node.uuid);
      }
      attributes = attrs === undefined ? null : json(attrs);
    }
    const row = nodeRow(minor, node.pk, rec, now);
    insert({
      ...row,
      attributes: attributes ?? '{}',
      extras: extras ?? '{}',
      repository_metadata: node.meta ?? '{}',
    });
  }
  const warnings = withoutAttributesWarning(withoutAttributes);
  if (withoutSymbols > 0) {
    warnings.push(
      `${withoutSymbols} TrajectoryData node(s) have no readable path/symbols.npy of strings, which their symbols attribute is made from; served without one`,
    );
  }
  if (active.length > 0) {
    warnings.push(
      `${active.length} process node(s) are in an active state, which an export never holds (${active[0]}...); served as they are`,
    );
  }
  return warnings;
}

function withoutAttributesWarning(count: number): string[] {
  return count > 0 ? [`${count} node(s) have no attributes in data.json; they are served with none`] : [];
}

/**
 * Nodes of 0.7 and later, whose attributes and extras go over as they are staged: one statement, the staged file
 * attached (nodeSql does what nodeRow does), so that a million nodes make no garbage for the JavaScript heap,
 * whose lazy collection doubled the conversion's peak memory.
 */
function copyNodes(copy: Copy, minor: number, now: string): string[] {
  copy.function('quarry_node_type', { deterministic: true }, (type: unknown) =>
    nodeTypeAt12(minor, typeof type === 'string' ? type : ''),
  );
  copy.function(
    'quarry_process_type',
    { deterministic: true },
    (type: unknown) => processTypeAt12(minor, type) as string,
  );
  copy.function('quarry_time', { deterministic: true }, (time: unknown) => storedTime(time, now));
  copy.function('quarry_refuse', (what: unknown) => {
    throw new LegacyArchiveError(`data.json: a node's ${String(what)} is neither text nor null`);
  });
  copy.prepare(nodeSql(minor)).run();
  const without = copy
    .prepare(
      'SELECT count(*) FROM stage.node n WHERE NOT EXISTS (SELECT 1 FROM stage.node_attributes a WHERE a.pk = n.pk)',
    )
    .pluck()
    .get() as number;
  return withoutAttributesWarning(without);
}

function writeDependents(stage: Stage, copy: Copy, now: string): void {
  const log = inserter(copy, 'db_dblog', [
    'id',
    'uuid',
    'time',
    'loggername',
    'levelname',
    'dbnode_id',
    'message',
    'metadata',
  ]);
  for (const { pk, rec } of entities(stage, 'Log')) {
    const row = logRow(pk, asRec(rec), now, parseExact);
    // main_0000a removed logs and comments of no node.
    if (row.dbnode_id !== null) log({ ...row, metadata: json(row.metadata) });
  }
  const comment = inserter(copy, 'db_dbcomment', [
    'id',
    'uuid',
    'dbnode_id',
    'ctime',
    'mtime',
    'user_id',
    'content',
  ]);
  for (const { pk, rec } of entities(stage, 'Comment')) {
    const row = commentRow(pk, asRec(rec), now);
    if (row.dbnode_id !== null && row.user_id !== null) comment(row);
  }
}

function asShapeProblem(error: unknown): Error {
  if (error instanceof LegacyArchiveError) return error;
  const message = (error as Error).message ?? String(error);
  if (/UNIQUE constraint failed: (\w+)\.(\w+)/.test(message)) {
    const [, table, column] = /UNIQUE constraint failed: (\w+)\.(\w+)/.exec(message)!;
    return new LegacyArchiveError(
      `data.json holds two ${table!.replace('db_db', '')}s with the same ${column}`,
    );
  }
  if (/NOT NULL constraint failed: (\w+)\.(\w+)/.test(message)) {
    const [, table, column] = /NOT NULL constraint failed: (\w+)\.(\w+)/.exec(message)!;
    return new LegacyArchiveError(`data.json has a ${table!.replace('db_db', '')} without its ${column}`);
  }
  return error as Error;
}
