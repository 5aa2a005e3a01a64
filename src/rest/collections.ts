/** The four entity collections of the v4 API and how each maps onto the query engine. */
import { deepFreeze } from '../util/deep-freeze.js';

export type CollectionName = 'users' | 'computers' | 'groups' | 'nodes';

export interface CollectionSpec {
  name: CollectionName;
  /** The QueryBuilder path vertex, as `QueryBuilder.append(cls)` writes it in `as_dict()`. */
  vertex: { entity_type: string; orm_base: string };
  /** The type filter `as_dict()` writes for that class with subclassing. */
  typeFilters: Record<string, unknown>;
  defaultProjections: string[];
  /** How `<id>` in the path identifies a record: an integer pk (users) or a UUID prefix. */
  idKind: 'pk' | 'uuid';
  /** The class name the reference puts in "not of type aiida.orm.X" messages. */
  aiidaType: string;
}

export const COLLECTIONS: Readonly<Record<CollectionName, CollectionSpec>> = deepFreeze({
  users: {
    name: 'users',
    vertex: { entity_type: 'user', orm_base: 'user' },
    typeFilters: {},
    defaultProjections: ['id', 'first_name', 'last_name', 'institution'],
    idKind: 'pk',
    aiidaType: 'User',
  },
  computers: {
    name: 'computers',
    vertex: { entity_type: 'computer', orm_base: 'computer' },
    typeFilters: {},
    defaultProjections: ['**'],
    idKind: 'uuid',
    aiidaType: 'Computer',
  },
  groups: {
    name: 'groups',
    vertex: { entity_type: 'group.core', orm_base: 'group' },
    typeFilters: { type_string: { like: '%' } },
    defaultProjections: ['**'],
    idKind: 'uuid',
    aiidaType: 'groups.Group',
  },
  nodes: {
    name: 'nodes',
    vertex: { entity_type: '', orm_base: 'node' },
    typeFilters: { node_type: { like: '%' } },
    defaultProjections: ['id', 'label', 'node_type', 'process_type', 'ctime', 'mtime', 'uuid', 'user_id'],
    idKind: 'uuid',
    aiidaType: 'node.Node',
  },
});
