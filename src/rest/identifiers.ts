/** Finding the one record that a path `<id>` names, with the reference's rules and messages. */
import { deepFreeze } from '../util/deep-freeze.js';
import { derivedFrom } from '../util/derived.js';
import { Param, type ParamValues } from '../query/index.js';
import { PK, queryRows } from './engine.js';
import type { StorageBackend } from '../storage/types.js';
import { inputError } from './errors.js';
import type { CollectionSpec } from './collections.js';

const UUID_REF = 'd55082b6-76dc-426b-af89-0e08b59524d2';

/**
 * Whether a path segment can start a UUID: the reference pads it with a reference UUID and asks Python's
 * uuid.UUID to parse the result. Anything else in that position is an unknown URL.
 */
export function isUuidPrefix(raw: string): boolean {
  if (isCanonical(raw)) return true;
  const padded = raw + UUID_REF.slice(raw.length);
  const hex = padded
    .replaceAll('urn:', '')
    .replaceAll('uuid:', '')
    .replace(/^[{}]+|[{}]+$/g, '')
    .replaceAll('-', '');
  return hex.length === 32 && /^[0-9a-fA-F]+$/.test(hex);
}

/** aiida's loader re-inserts dashes at UUID positions, so `495a368d1` finds `495a368d-1…`. */
function dashed(identifier: string): string {
  // Most ids are written in full already, and dashing changes nothing there.
  if (isCanonical(identifier)) return identifier;
  let uuid = identifier.replaceAll('-', '');
  for (const pos of [20, 16, 12, 8]) {
    if (uuid.length > pos) uuid = `${uuid.slice(0, pos)}-${uuid.slice(pos)}`;
  }
  return uuid;
}

/** Whether `raw` names a complete UUID: at most one record, found through the unique UUID index. */
export function isCompleteUuid(raw: string): boolean {
  return CANONICAL_UUID.test(dashed(raw));
}

const LOWEST = '00000000-0000-0000-0000-000000000000';
const HIGHEST = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A UUID written in full with its dashes: the common case, taken as it is without rewriting. */
const isCanonical = (raw: string): boolean => raw.length === 36 && CANONICAL_UUID.test(raw);

const UUID = new Param('uuid');
const UUID_LOW = new Param('uuid_low');
const UUID_HIGH = new Param('uuid_high');
const BY_UUID = deepFreeze({ uuid: { '==': UUID } });
const BY_UUID_PREFIX = deepFreeze({ uuid: { '>=': UUID_LOW, '<=': UUID_HIGH } });
const BY_PK = deepFreeze({ id: { '==': PK } });

/** A condition on a record's own columns, with the values of the Params it holds. */
export interface IdCondition {
  filter: Record<string, unknown>;
  values?: ParamValues;
  /** Names a filter shared by every id of its kind (its values are Params): queries using it can be kept. */
  shared?: 'uuid' | 'prefix' | 'pk';
}

/**
 * A complete UUID is compared for equality, a prefix as the range of UUIDs that start with it: the same
 * rows as aiida's LIKE 'prefix%', found through the UUID index on every backend (PostgreSQL's uuid type
 * cannot use its index for LIKE). Well-formed ids are bound as Params, so every node shares one plan.
 */
function uuidCondition(uuid: string): IdCondition {
  if (uuid.length === 36) {
    if (CANONICAL_UUID.test(uuid)) return { filter: BY_UUID, values: { uuid }, shared: 'uuid' };
    return { filter: { uuid: { '==': uuid } } };
  }
  const prefix = uuid.toLowerCase();
  if (!/^[0-9a-f-]*$/.test(prefix)) return { filter: { uuid: { like: `${uuid}%` } } };
  return {
    filter: BY_UUID_PREFIX,
    shared: 'prefix',
    values: {
      uuid_low: prefix + LOWEST.slice(prefix.length),
      uuid_high: prefix + HIGHEST.slice(prefix.length),
    },
  };
}

/** Resolve `<id>` to the pk of the one matching record, or answer as the reference does (404). */
export async function resolveId(
  backend: StorageBackend,
  spec: CollectionSpec,
  raw: string | number,
): Promise<number> {
  const condition = idFilter(spec, raw);
  const { path, project } = idQueryParts(spec);
  const rows = await queryRows(backend, recordQuery(spec, condition, 'e', path, project), {
    values: condition.values,
  });
  const id = theOne(
    rows.map((r) => r.e),
    spec,
    raw,
  )?.id;
  return id as number;
}

/**
 * The query of the record that `<id>` names (two rows at most: a prefix of two records is refused), `path`
 * starting at the record's vertex `tag`, projecting `project` (frozen, one per caller). The query of an id
 * bound as a Param is frozen and kept per kind of id, as every request of that kind asks it.
 */
export function recordQuery(
  spec: CollectionSpec,
  condition: IdCondition,
  tag: string,
  path: unknown,
  project: object,
): Record<string, unknown> {
  const make = () =>
    deepFreeze({ path, filters: { [tag]: { ...spec.typeFilters, ...condition.filter } }, project, limit: 2 });
  return condition.shared ? derivedFrom(project, `${spec.name}|${tag}|${condition.shared}`, make) : make();
}

/** The constant parts of each collection's id lookup, frozen so that the query engine knows them by identity. */
const idQueries = new Map<string, { path: unknown; project: object }>();

function idQueryParts(spec: CollectionSpec): { path: unknown; project: object } {
  let parts = idQueries.get(spec.name);
  if (!parts) {
    parts = deepFreeze({ path: [{ ...spec.vertex, tag: 'e' }], project: { e: ['id'] } });
    idQueries.set(spec.name, parts);
  }
  return parts;
}

/** The condition on a collection's own column that `<id>` names (pk, full UUID or UUID prefix). */
export function idFilter(spec: CollectionSpec, raw: string | number): IdCondition {
  if (spec.idKind === 'uuid') return uuidCondition(dashed(String(raw)));
  const pk = Number(raw);
  return Number.isSafeInteger(pk)
    ? { filter: BY_PK, values: { pk }, shared: 'pk' }
    : { filter: { id: { '==': pk } } };
}

/** The one record `<id>` names among the rows found for it (at most two asked for), or the reference's 404. */
export function theOne<T>(rows: (T | undefined)[], spec: CollectionSpec, raw: string | number): T {
  if (rows.length > 1) throw inputError('More than one node found. Provide longer starting pattern for id.');
  const found = rows[0];
  if (found === undefined) {
    throw inputError(
      `either no object's id starts with '${raw}' or the corresponding object is not of type aiida.orm.${spec.aiidaType}`,
    );
  }
  return found;
}
