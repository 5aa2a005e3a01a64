/**
 * nodeRow (steps.ts) as one INSERT ... SELECT over the staged file (attached as `stage`), for export versions
 * 0.7 and later: each field read from the staged record as nodeRow reads it from the parsed one. The functions
 * quarry_node_type, quarry_process_type, quarry_time and quarry_refuse are the copy's (convert.ts).
 */

const type = (field: string) => `json_type(n.rec, '$.${field}')`;
const value = (field: string) => `json_extract(n.rec, '$.${field}')`;

/** text(): the string, or '' for anything else. */
const text = (field: string) => `CASE ${type(field)} WHEN 'text' THEN ${value(field)} ELSE '' END`;

/** intOrNull(): a number that is a safe integer (JSON's 1.0 and 1e2 are, as JSON.parse reads them), else null. */
const intOrNull = (field: string) =>
  `CASE WHEN ${type(field)} IN ('integer', 'real') AND ${value(field)} = CAST(${value(field)} AS INTEGER)
     AND abs(${value(field)}) <= 9007199254740991 THEN CAST(${value(field)} AS INTEGER) END`;

/** storedTime(): a string in a datetime's form, else the conversion's time. */
const time = (field: string) => `quarry_time(CASE ${type(field)} WHEN 'text' THEN ${value(field)} END)`;

/** `minor`: the archive's export version (0.7 -> 7); types are renamed only before 0.12. */
export function nodeSql(minor: number): string {
  const renamed = (sql: string, fn: string) => (minor < 12 ? `${fn}(${sql})` : sql);
  return `
    INSERT INTO db_dbnode (id, uuid, node_type, process_type, label, description, ctime, mtime, attributes,
      extras, repository_metadata, dbcomputer_id, user_id)
    SELECT n.pk, n.uuid, ${renamed(text('node_type'), 'quarry_node_type')},
      CASE ${type('process_type')}
        WHEN 'text' THEN ${renamed(value('process_type'), 'quarry_process_type')}
        WHEN 'integer' THEN ${value('process_type')}
        WHEN 'real' THEN ${value('process_type')}
        WHEN 'null' THEN NULL
        ELSE CASE WHEN ${type('process_type')} IS NULL THEN NULL ELSE quarry_refuse('process_type') END
      END,
      ${text('label')}, ${text('description')}, ${time('ctime')}, ${time('mtime')},
      coalesce(a.rec, '{}'), coalesce(e.rec, '{}'), coalesce(r.meta, '{}'),
      ${intOrNull('dbcomputer')}, ${intOrNull('user')}
    FROM stage.node n
    LEFT JOIN stage.node_attributes a ON a.pk = n.pk
    LEFT JOIN stage.node_extras e ON e.pk = n.pk
    LEFT JOIN stage.repo r ON r.pk = n.pk
    ORDER BY n.pk`;
}
