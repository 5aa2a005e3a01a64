/**
 * A node's "full type" joins its node_type and process_type with `|`; each half may end in `%` to mean
 * "starts with". This mirrors aiida-core's restapi/common/identifiers.py, which clients rely on.
 */

export const FULL_TYPE_CONCATENATOR = '|';
const LIKE = '%';

export class FullTypeError extends Error {
  override name = 'FullTypeError';
}

export function constructFullType(
  nodeType: string | null | undefined,
  processType: string | null | undefined,
) {
  return `${nodeType ?? ''}${FULL_TYPE_CONCATENATOR}${processType ?? ''}`;
}

/** The full_type a node carries in REST answers: null when it has neither a node_type nor a process_type. */
export function fullTypeOf(nodeType: unknown, processType: unknown): string | null {
  const n = typeof nodeType === 'string' ? nodeType : '';
  const p = typeof processType === 'string' ? processType : '';
  return n || p ? constructFullType(n, p) : null;
}

/** Escape the LIKE wildcards of a literal prefix, as aiida's escape_for_sql_like does. */
export function escapeForSqlLike(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/%/g, '\\%').replace(/_/g, '\\_');
}

export type FullTypeFilters = Record<string, unknown>;

/**
 * QueryBuilder filters selecting every node of a full type.
 * A value without `|` is read as `<value>|%`: the legacy Materials Cloud explorer sends
 * `full_type="data.core.structure.StructureData."` and means "any process type".
 */
export function fullTypeFilters(fullType: string): FullTypeFilters {
  const count = fullType.split(FULL_TYPE_CONCATENATOR).length - 1;
  if (count > 1) {
    throw new FullTypeError(
      `full_type "${fullType}" contains "${FULL_TYPE_CONCATENATOR}" more than once; ` +
        'expected <node_type>|<process_type>, e.g. "data.core.dict.Dict.|"',
    );
  }
  const [nodeTypeRaw, processTypeRaw] =
    count === 0 ? [fullType, LIKE] : fullType.split(FULL_TYPE_CONCATENATOR);
  const nodeType = nodeTypeRaw ?? '';
  const processType = processTypeRaw ?? '';
  for (const part of [nodeType, processType]) {
    const likes = part.split(LIKE).length - 1;
    if (likes > 1) {
      throw new FullTypeError(
        `full_type component "${part}" contains "%" more than once; use it once, at the end`,
      );
    }
    if (likes === 1 && !part.endsWith(LIKE)) {
      throw new FullTypeError(
        `full_type component "${part}" has "%" before its end; "%" may only end a component`,
      );
    }
  }
  const filters: FullTypeFilters = {};
  filters.node_type = nodeType.endsWith(LIKE)
    ? { like: escapeForSqlLike(nodeType.slice(0, -1)) + LIKE }
    : { '==': nodeType };
  if (processType.endsWith(LIKE)) {
    const prefix = processType.slice(0, -1);
    if (prefix) filters.process_type = { like: escapeForSqlLike(prefix) + LIKE };
  } else if (processType) {
    filters.process_type = { '==': processType };
  } else {
    // '' stands for both '' and NULL: migrations left both behind for "no process type".
    filters.process_type = { or: [{ '==': '' }, { '==': null }] };
  }
  return filters;
}
