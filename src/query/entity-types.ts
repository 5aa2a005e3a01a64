/** What a path vertex's `entity_type` / `orm_base` select, with the QueryBuilder's subclassing rules. */
import { QueryValidationError, type FilterNode, type Vertex } from './model.js';

const ORM_BASES: Record<string, Vertex['kind']> = {
  node: 'node',
  group: 'group',
  user: 'user',
  computer: 'computer',
  comment: 'comment',
  log: 'log',
};

export function entityKindOf(entityType: unknown, ormBase: unknown, where: string): Vertex['kind'] {
  if (typeof ormBase === 'string') {
    const kind = ORM_BASES[ormBase];
    if (!kind) {
      throw new QueryValidationError(
        `${where}.orm_base: unknown "${ormBase}"; use ${Object.keys(ORM_BASES).join(', ')}`,
      );
    }
    return kind;
  }
  const first = Array.isArray(entityType) ? entityType[0] : entityType;
  if (typeof first !== 'string') {
    throw new QueryValidationError(
      `${where}: needs an "entity_type" string (e.g. "data.core.dict.Dict.") or "orm_base"`,
    );
  }
  if (first.startsWith('group.')) return 'group';
  return ORM_BASES[first] ?? 'node';
}

const escapeLike = (s: string) => s.replace(/\\/g, '\\\\').replace(/%/g, '\\%').replace(/_/g, '\\_');
const cmp = (column: string, op: '==' | 'like', value: string): FilterNode => ({
  kind: 'cmp',
  field: { column, path: [] },
  op,
  value,
});

/** aiida's get_query_type_from_type_string: `data.core.dict.Dict.` -> `data.core.dict.`. */
function queryTypePrefix(typeString: string): string {
  if (typeString === '') return '';
  const parts = typeString.split('.');
  return `${parts.slice(0, -2).join('.')}.`;
}

function nodeTypeFilter(entityType: string, subclassing: boolean, where: string): FilterNode | undefined {
  if (entityType === '' || entityType === 'node.Node.') return undefined;
  if (!entityType.endsWith('.')) {
    // A process type string (an entry point such as aiida.calculations:core.arithmetic.add).
    if (!entityType.includes(':') && !entityType.startsWith('aiida.')) {
      throw new QueryValidationError(
        `${where}.entity_type: "${entityType}" is not a node type string (they end in ".")`,
      );
    }
    return subclassing
      ? {
          kind: 'or',
          items: [
            cmp('process_type', '==', entityType),
            cmp('process_type', 'like', `${escapeLike(entityType)}.%`),
          ],
        }
      : cmp('process_type', '==', entityType);
  }
  // AbstractCode came late: its entry point is not the prefix of the other code classes.
  const value = entityType === 'data.core.code.abstract.AbstractCode.' ? 'data.core.code.' : entityType;
  if (!subclassing) return cmp('node_type', '==', value);
  const prefix = value === 'data.core.code.' ? value : queryTypePrefix(value);
  return prefix === '.' ? undefined : cmp('node_type', 'like', `${escapeLike(prefix)}%`);
}

function groupTypeFilter(entityType: string, subclassing: boolean, where: string): FilterNode | undefined {
  if (!entityType.startsWith('group.')) {
    throw new QueryValidationError(
      `${where}.entity_type: group types look like "group.core", got "${entityType}"`,
    );
  }
  const value = entityType.slice('group.'.length);
  if (!subclassing) return cmp('type_string', '==', value);
  // The base Group class ("core") matches every group type, plugins' included.
  return value === 'core' ? undefined : cmp('type_string', 'like', `${escapeLike(value)}%`);
}

export function typeFilterOf(
  kind: Vertex['kind'],
  entityType: unknown,
  subclassing: boolean,
  where: string,
): FilterNode | undefined {
  const types =
    entityType === undefined || entityType === null
      ? []
      : Array.isArray(entityType)
        ? entityType
        : [entityType];
  if (types.some((t) => typeof t !== 'string')) {
    throw new QueryValidationError(`${where}.entity_type: must be a string or a list of strings`);
  }
  let filters: (FilterNode | undefined)[];
  if (kind === 'node') filters = (types as string[]).map((t) => nodeTypeFilter(t, subclassing, where));
  else if (kind === 'group') filters = (types as string[]).map((t) => groupTypeFilter(t, subclassing, where));
  else {
    for (const t of types as string[]) {
      if (t !== kind)
        throw new QueryValidationError(`${where}.entity_type: "${t}" does not fit orm_base "${kind}"`);
    }
    return undefined;
  }
  if (filters.length === 0 || filters.some((f) => f === undefined)) return undefined;
  return filters.length === 1 ? filters[0] : { kind: 'or', items: filters as FilterNode[] };
}
