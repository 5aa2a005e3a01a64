/**
 * What one export holds, worked out before a byte is sent (so that a bound is a 413, not a cut stream): the
 * nodes of the closure, their links, the groups asked for and their memberships, and the users, computers,
 * comments, logs and repository files that come with them, as aiida-core's `_collect_required_entities`
 * gathers them (src/aiida/tools/archive/create.py). Only ids are kept; the rows are read again as they are
 * written.
 */
import { HttpError } from '../rest/errors.js';
import type { Database, QueryBudget, Repository } from '../storage/types.js';
import { provenanceClosure } from './closure.js';
import type { ExportRequest } from './params.js';
import { defaultRules, type RuleValues } from './rules.js';
import { allIds, distinctOf, groupMembers, idsOfUuids, slices, type LinkRow } from './source-rows.js';

export interface ExportPlan {
  /** What metadata.json's creation_parameters say. */
  start: { nodes: string[]; groups: string[] } | undefined;
  rules: RuleValues;
  includeComments: boolean;
  includeLogs: boolean;
  nodes: number[];
  nodeTypes: Record<string, number>;
  links: LinkRow[];
  groups: number[];
  groupNodes: [number, number][];
  users: number[];
  computers: number[];
  comments: number[];
  logs: number[];
  /** Repository objects by sha256 key, with their sizes. */
  files: Map<string, number>;
  fileBytes: number;
  /**
   * Bytes of the nodes' attributes, extras and repository metadata: most of the database, known before it is
   * written (it is written while the files stream, after the first byte).
   */
  rowBytes: number;
}

export interface Bounds {
  maxNodes: number;
  maxBytes: number;
}

/** The plan of an export of the nodes and groups a request names. */
export async function planExport(
  db: Database,
  repository: Repository,
  request: ExportRequest,
  bounds: Bounds,
  budget: QueryBudget,
): Promise<ExportPlan> {
  const nodeIds = await idsOfUuids(db, 'db_dbnode', request.nodes, budget);
  const groupIds = await idsOfUuids(db, 'db_dbgroup', request.groups, budget);
  const missing = [
    ...request.nodes.filter((u) => !nodeIds.has(u)).map((u) => `node ${u}`),
    ...request.groups.filter((u) => !groupIds.has(u)).map((u) => `group ${u}`),
  ];
  if (missing.length > 0)
    throw new HttpError(
      404,
      `not in this source: ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ` and ${missing.length - 20} more` : ''}`,
    );
  const groups = [...groupIds.values()].sort((a, b) => a - b);
  const groupNodes = await groupMembers(db, groups, budget);
  const start = new Set<number>(nodeIds.values());
  for (const [, node] of groupNodes) start.add(node);
  const closure = await provenanceClosure(db, start, request.rules, bounds.maxNodes, budget);
  return complete(
    db,
    repository,
    {
      start: { nodes: request.nodes, groups: request.groups },
      rules: request.rules,
      includeComments: request.includeComments,
      includeLogs: request.includeLogs,
      nodes: [...closure.nodes].sort((a, b) => a - b),
      links: closure.links,
      groups,
      groupNodes,
    },
    bounds,
    budget,
  );
}

/** The plan of an export of everything the source holds (`verdi archive create --all`). */
export async function planWhole(
  db: Database,
  repository: Repository,
  bounds: Bounds,
  budget: QueryBudget,
): Promise<ExportPlan> {
  const nodes = await allIds(db, 'db_dbnode', budget);
  if (nodes.length > bounds.maxNodes)
    throw new HttpError(
      413,
      `the source holds ${nodes.length} nodes, more than the ${bounds.maxNodes} of --max-export-nodes; export groups or nodes with their provenance instead`,
    );
  const rows = await db.values(
    { sql: 'SELECT id, input_id, output_id, label, type FROM db_dblink ORDER BY id', params: [] },
    budget,
  );
  const inside = new Set(nodes);
  // A legacy archive may hold a link to a node it lacks; aiida-core's own export could not have written it.
  const links = rows
    .map(([id, input, output, label, type]) => ({
      id: Number(id),
      input: Number(input),
      output: Number(output),
      label: String(label),
      type: String(type),
    }))
    .filter((l) => inside.has(l.input) && inside.has(l.output));
  const groups = await allIds(db, 'db_dbgroup', budget);
  return complete(
    db,
    repository,
    {
      start: undefined,
      rules: defaultRules(),
      includeComments: true,
      includeLogs: true,
      nodes,
      links,
      groups,
      groupNodes: await groupMembers(db, groups, budget),
    },
    bounds,
    budget,
  );
}

type Core = Pick<
  ExportPlan,
  'start' | 'rules' | 'includeComments' | 'includeLogs' | 'nodes' | 'links' | 'groups' | 'groupNodes'
>;

async function complete(
  db: Database,
  repository: Repository,
  core: Core,
  bounds: Bounds,
  budget: QueryBudget,
): Promise<ExportPlan> {
  const users = new Set<number>();
  const computers = new Set<number>();
  const nodeTypes: Record<string, number> = {};
  const keys = new Set<string>();
  const meta = db.dialect === 'sqlite' ? 'repository_metadata' : 'CAST(repository_metadata AS text)';
  const size = (column: string) =>
    db.dialect === 'sqlite'
      ? `coalesce(length(CAST(${column} AS blob)), 0)`
      : `coalesce(octet_length(CAST(${column} AS text)), 0)`;
  let rowBytes = 0;
  for (const part of slices(core.nodes)) {
    const marks = part.map((_, i) => (db.dialect === 'sqlite' ? '?' : `$${i + 1}`)).join(', ');
    const rows = await db.values(
      {
        sql: `SELECT node_type, user_id, dbcomputer_id, ${meta}, ${size('attributes')} + ${size('extras')} + ${size('repository_metadata')} FROM db_dbnode WHERE id IN (${marks})`,
        params: part,
      },
      budget,
    );
    for (const [type, user, computer, repo, bytes] of rows) {
      rowBytes += Number(bytes);
      nodeTypes[String(type)] = (nodeTypes[String(type)] ?? 0) + 1;
      users.add(Number(user));
      if (computer !== null && computer !== undefined) computers.add(Number(computer));
      collectKeys(repo, keys);
    }
  }
  for (const user of await distinctOf(db, 'db_dbgroup', 'user_id', 'id', core.groups, budget))
    users.add(user);
  const comments = core.includeComments
    ? [...(await distinctOf(db, 'db_dbcomment', 'id', 'dbnode_id', core.nodes, budget))].sort((a, b) => a - b)
    : [];
  if (comments.length > 0)
    for (const user of await distinctOf(db, 'db_dbcomment', 'user_id', 'id', comments, budget))
      users.add(user);
  const logs = core.includeLogs
    ? [...(await distinctOf(db, 'db_dblog', 'id', 'dbnode_id', core.nodes, budget))].sort((a, b) => a - b)
    : [];
  const files = new Map<string, number>();
  let fileBytes = 0;
  for (const key of [...keys].sort()) {
    const object = await repository.get(key);
    // An object the repository lacks cannot be written; aiida-core's export would fail on it the same way.
    if (object === undefined)
      throw new HttpError(
        502,
        `the repository of this source lacks the file ${key} that one of the exported nodes names; the source's data is incomplete`,
      );
    files.set(key, object.size);
    fileBytes += object.size;
    if (fileBytes + rowBytes > bounds.maxBytes) throw tooManyBytes(bounds.maxBytes);
  }
  if (fileBytes + rowBytes > bounds.maxBytes) throw tooManyBytes(bounds.maxBytes);
  return {
    ...core,
    nodeTypes,
    users: [...users].sort((a, b) => a - b),
    computers: [...computers].sort((a, b) => a - b),
    comments,
    logs,
    files,
    fileBytes,
    rowBytes,
  };
}

export function tooManyBytes(maxBytes: number): HttpError {
  return new HttpError(
    413,
    `the export would be larger than ${maxBytes} bytes (--max-export-bytes); ask for fewer nodes, or turn rules off (e.g. create_backward=false)`,
  );
}

/** The sha256 keys of a node's repository_metadata (`{"o": {name: {"k": key} | {"o": ...}}}`). */
function collectKeys(value: unknown, into: Set<string>): void {
  if (value === null || value === undefined) return;
  const tree: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  const walk = (entry: unknown) => {
    if (entry === null || typeof entry !== 'object') return;
    const { k, o } = entry as { k?: unknown; o?: unknown };
    if (typeof k === 'string') into.add(k);
    if (o !== null && typeof o === 'object') for (const child of Object.values(o)) walk(child);
  };
  walk(tree);
}

/** What `?dry_run=1` answers. */
export function planSummary(plan: ExportPlan) {
  return {
    export_version: 'main_0001',
    nodes: { total: plan.nodes.length, by_type: plan.nodeTypes },
    links: plan.links.length,
    groups: plan.groups.length,
    group_nodes: plan.groupNodes.length,
    users: plan.users.length,
    computers: plan.computers.length,
    comments: plan.comments.length,
    logs: plan.logs.length,
    files: plan.files.size,
    file_bytes: plan.fileBytes,
    graph_traversal_rules: plan.rules,
    include_comments: plan.includeComments,
    include_logs: plan.includeLogs,
  };
}
