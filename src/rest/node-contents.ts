/** `/nodes/<id>/contents/...`, `/nodes/<id>/repo/...`, process reports and calcjob files. */
import {
  RepositoryPathError,
  fileKey,
  listRepository,
  type ListedObject,
} from '../domain/repository-tree.js';
import type { Readable } from 'node:stream';
import type { StorageBackend } from '../storage/types.js';
import { COLLECTIONS } from './collections.js';
import { PK, queryRows } from './engine.js';
import { HttpError, badRequest, inputError } from './errors.js';
import { formatValue } from './format.js';
import { idFilter, recordQuery, theOne } from './identifiers.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { carryMark } from '../util/exact-json.js';

export interface NodeRecord {
  id: number;
  uuid: string;
  node_type: string;
  process_type: string | null;
  label: string;
  attributes: Record<string, unknown>;
  extras: Record<string, unknown>;
  repository_metadata: unknown;
}

/** The parts of the node queries shared by every request, known to the query engine by their identity. */
const NODE_PATH = deepFreeze([{ ...COLLECTIONS.nodes.vertex, tag: 'n' }]);
const NODE_PROJECTION = deepFreeze({
  n: ['id', 'uuid', 'node_type', 'process_type', 'label', 'attributes', 'extras', 'repository_metadata'],
});
const NODE_BY_PK = deepFreeze({
  path: NODE_PATH,
  filters: { n: { id: { '==': PK } } },
  project: NODE_PROJECTION,
});

/** Load the node a path `<id>` names (UUID or UUID prefix), or answer 404 as the reference does: one query. */
export async function loadNode(backend: StorageBackend, rawId: string): Promise<NodeRecord> {
  const spec = COLLECTIONS.nodes;
  const condition = idFilter(spec, rawId);
  const rows = await queryRows(backend, recordQuery(spec, condition, 'n', NODE_PATH, NODE_PROJECTION), {
    values: condition.values,
  });
  return nodeRecord(theOne(rows, spec, rawId).n ?? {});
}

export async function nodeById(backend: StorageBackend, pk: number): Promise<NodeRecord | undefined> {
  const n = (await queryRows(backend, NODE_BY_PK, { values: { pk } }))[0]?.n;
  return n && nodeRecord(n);
}

const nodeRecord = (n: Record<string, unknown>): NodeRecord =>
  ({ ...n, attributes: asObject(n.attributes), extras: asObject(n.extras) }) as NodeRecord;

const asObject = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

const asKeyList = (v: unknown): string[] | undefined =>
  v === undefined ? undefined : (Array.isArray(v) ? v : [v]).map((x) => String(x));

/** Attributes or extras, all or only the keys of `attributes_filter` / `extras_filter` (in stored order). */
export function selectKeys(values: Record<string, unknown>, filter: unknown): Record<string, unknown> {
  const keys = asKeyList(filter);
  if (keys === undefined) return values;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(values)) {
    if (!keys.includes(key)) continue;
    out[key] = values[key];
    carryMark(values, key, out);
  }
  return out;
}

export async function nodeComments(backend: StorageBackend, node: NodeRecord) {
  const rows = await queryRows(
    backend,
    {
      path: [{ entity_type: 'comment', orm_base: 'comment', tag: 'c' }],
      filters: { c: { dbnode_id: { '==': PK } } },
      project: { c: ['ctime', 'mtime', 'content', 'user_id'] },
      order_by: [{ c: [{ id: { order: 'asc' } }] }],
    },
    { values: { pk: node.id } },
  );
  const names = await userNames(
    backend,
    rows.map((r) => r.c?.user_id as number),
  );
  return rows.map(({ c = {} }) => ({
    created_time: formatValue(c.ctime),
    message: c.content,
    modified_time: formatValue(c.mtime),
    user: names.get(c.user_id as number) ?? '',
  }));
}

async function userNames(backend: StorageBackend, ids: number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await queryRows(backend, {
    path: [{ entity_type: 'user', orm_base: 'user', tag: 'u' }],
    filters: { u: { id: { in: unique } } },
    project: { u: ['id', 'first_name', 'last_name'] },
  });
  return new Map(rows.map(({ u = {} }) => [u.id as number, `${u.first_name} ${u.last_name}`]));
}

/** The reference's statuses for repository paths: 400 for a path we refuse, 404 for one that is not there. */
function repositoryError(error: unknown): never {
  if (error instanceof RepositoryPathError) {
    if (error.kind === 'invalid-path' || error.kind === 'is-a-directory') throw badRequest(error.message);
    throw inputError(error.message);
  }
  throw error;
}

/** `filename` as the query string gives it: a quoted string (or nothing, for the top folder). */
export function filenameParam(value: unknown, required: boolean): string {
  if (value === undefined) {
    if (required) throw badRequest('filename is not provided');
    return '';
  }
  if (typeof value !== 'string') {
    throw badRequest(`filename must be a quoted string such as filename="aiida.in", got ${String(value)}`);
  }
  return value;
}

export function repoList(node: NodeRecord, filename: string): ListedObject[] {
  try {
    return listRepository(node.repository_metadata, filename);
  } catch (error) {
    repositoryError(error);
  }
}

export interface FileStream {
  size: number;
  stream: () => Promise<Readable>;
}

export async function repoFile(
  backend: StorageBackend,
  node: NodeRecord,
  filename: string,
): Promise<FileStream> {
  let key: string;
  try {
    key = fileKey(node.repository_metadata, filename);
  } catch (error) {
    if (error instanceof RepositoryPathError && error.kind === 'not-found')
      throw inputError('No such file is present');
    repositoryError(error);
  }
  const object = await backend.repository.get(key);
  if (!object)
    throw new HttpError(404, `The file "${filename}" is recorded for this node but missing from the storage`);
  return object;
}

/**
 * Largest repository file an exporter reads whole (64 MiB): a download made from it is built in memory, a few
 * times its size as JSON text; past this, one request could take a serving process down.
 */
export const CONVERTED_FILE_BYTES = 64 * 1024 * 1024;

/** A whole repository file of a node, for exporters: at most `most` bytes, or a 400 naming the raw download. */
export async function readNodeFile(
  backend: StorageBackend,
  node: NodeRecord,
  filename: string,
  most = CONVERTED_FILE_BYTES,
): Promise<Buffer> {
  const file = await repoFile(backend, node, filename);
  const tooLarge = (size: number) =>
    badRequest(
      `The file "${filename}" of this node holds ${size} bytes; this server converts files of at most ${most} ` +
        `bytes: download it as it is at /nodes/${node.uuid}/repo/contents?filename=${encodeURIComponent(filename)}`,
    );
  if (file.size > most) throw tooLarge(file.size);
  const chunks: Buffer[] = [];
  let read = 0;
  const stream = await file.stream();
  for await (const chunk of stream) {
    read += (chunk as Buffer).length;
    // A damaged storage may hold more than it says.
    if (read > most) {
      stream.destroy();
      throw tooLarge(read);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const isProcess = (node: NodeRecord) => node.node_type.startsWith('process.');
const isCalcJob = (node: NodeRecord) => node.node_type.startsWith('process.calculation.calcjob.');

export async function processReport(backend: StorageBackend, node: NodeRecord) {
  if (!isProcess(node)) {
    throw inputError(`node ${node.uuid} is not of the required type ProcessNode`);
  }
  // The reference leaves the order undefined; we give time order, then id.
  const rows = await queryRows(
    backend,
    {
      path: [{ entity_type: 'log', orm_base: 'log', tag: 'l' }],
      filters: { l: { dbnode_id: { '==': PK } } },
      project: { l: ['time', 'loggername', 'levelname', 'dbnode_id', 'message'] },
      order_by: [{ l: [{ time: { order: 'asc' } }, { id: { order: 'asc' } }] }],
    },
    { values: { pk: node.id } },
  );
  return {
    logs: rows.map(({ l = {} }) => ({
      dbnode_id: l.dbnode_id,
      levelname: l.levelname,
      loggername: l.loggername,
      message: l.message,
      time: formatValue(l.time),
    })),
  };
}

export async function calcjobFiles(
  backend: StorageBackend,
  node: NodeRecord,
  which: 'input' | 'output',
  filename: string,
): Promise<unknown> {
  if (!isCalcJob(node)) throw inputError(`node ${node.uuid} is not of the required type CalcJobNode`);
  if (which === 'input') return repoList(node, filename);
  const rows = await queryRows(
    backend,
    {
      path: [
        { entity_type: '', orm_base: 'node', tag: 'calc' },
        {
          entity_type: 'data.core.folder.FolderData.',
          orm_base: 'node',
          tag: 'retrieved',
          joining_keyword: 'with_incoming',
          joining_value: 'calc',
          edge_tag: 'link',
        },
      ],
      filters: { calc: { id: { '==': PK } }, link: { label: { '==': 'retrieved' } } },
      project: { retrieved: ['id'] },
      limit: 1,
    },
    { values: { pk: node.id } },
  );
  const retrievedId = rows[0]?.retrieved?.id;
  if (typeof retrievedId !== 'number')
    return { data: 'This node does not have retrieved folder', status: 200 };
  const retrieved = (await nodeById(backend, retrievedId)) as NodeRecord;
  return repoList(retrieved, filename);
}
