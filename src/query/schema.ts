/** The AiiDA tables the query engine reads, and the QueryBuilder names of their columns. */

export type EntityKind = 'node' | 'group' | 'user' | 'computer' | 'comment' | 'log' | 'link' | 'group_node';

export type ColumnType = 'int' | 'text' | 'datetime' | 'json' | 'bool';

export interface TableSchema {
  table: string;
  columns: Record<string, ColumnType>;
}

export const SCHEMA: Record<EntityKind, TableSchema> = {
  node: {
    table: 'db_dbnode',
    columns: {
      id: 'int',
      uuid: 'text',
      node_type: 'text',
      process_type: 'text',
      label: 'text',
      description: 'text',
      ctime: 'datetime',
      mtime: 'datetime',
      attributes: 'json',
      extras: 'json',
      repository_metadata: 'json',
      dbcomputer_id: 'int',
      user_id: 'int',
    },
  },
  group: {
    table: 'db_dbgroup',
    columns: {
      id: 'int',
      uuid: 'text',
      label: 'text',
      type_string: 'text',
      time: 'datetime',
      description: 'text',
      extras: 'json',
      user_id: 'int',
    },
  },
  user: {
    table: 'db_dbuser',
    columns: { id: 'int', email: 'text', first_name: 'text', last_name: 'text', institution: 'text' },
  },
  computer: {
    table: 'db_dbcomputer',
    columns: {
      id: 'int',
      uuid: 'text',
      label: 'text',
      hostname: 'text',
      description: 'text',
      scheduler_type: 'text',
      transport_type: 'text',
      metadata: 'json',
    },
  },
  comment: {
    table: 'db_dbcomment',
    columns: {
      id: 'int',
      uuid: 'text',
      dbnode_id: 'int',
      ctime: 'datetime',
      mtime: 'datetime',
      user_id: 'int',
      content: 'text',
    },
  },
  log: {
    table: 'db_dblog',
    columns: {
      id: 'int',
      uuid: 'text',
      time: 'datetime',
      loggername: 'text',
      levelname: 'text',
      dbnode_id: 'int',
      message: 'text',
      metadata: 'json',
    },
  },
  link: {
    table: 'db_dblink',
    columns: { id: 'int', input_id: 'int', output_id: 'int', label: 'text', type: 'text' },
  },
  group_node: {
    table: 'db_dbgroup_dbnodes',
    columns: { id: 'int', dbnode_id: 'int', dbgroup_id: 'int' },
  },
};

/** Columns that may hold NULL; every other column is NOT NULL in the AiiDA schema. */
export const NULLABLE: Partial<Record<EntityKind, Set<string>>> = {
  node: new Set(['process_type', 'attributes', 'extras', 'dbcomputer_id']),
};

export function isNullable(kind: EntityKind, column: string): boolean {
  return NULLABLE[kind]?.has(column) ?? false;
}

/** Older QueryBuilder names still found in saved dictionaries. */
export const COLUMN_ALIASES: Partial<Record<EntityKind, Record<string, string>>> = {
  node: { computer_id: 'dbcomputer_id', type: 'node_type' },
  group: { type: 'type_string', name: 'label' },
  comment: { node_id: 'dbnode_id' },
  log: { node_id: 'dbnode_id' },
};
