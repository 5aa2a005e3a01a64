/** Nodes as a table: pk, label, type, dates, user; each row links to its node. */
import type { NodeSummary } from '../types.js';
import { kindName } from '../format.js';
import { DateTime } from './DateTime.js';
import { Link } from './Link.js';
import { Formula } from './Formula.js';
import { useBandsFormulas, useFormulas } from './formulas.js';
import { useExplorer } from '../context.js';

export interface Column {
  key: string;
  title: string;
  /** The API's `orderby` column, when the table can be sorted by it. */
  sort?: string;
}

export const NODE_COLUMNS: Column[] = [
  { key: 'id', title: 'pk', sort: 'id' },
  { key: 'label', title: 'Label', sort: 'label' },
  { key: 'type', title: 'Type', sort: 'node_type' },
  { key: 'ctime', title: 'Created', sort: 'ctime' },
  { key: 'mtime', title: 'Modified', sort: 'mtime' },
  { key: 'user', title: 'User', sort: 'user_id' },
  { key: 'uuid', title: 'UUID', sort: 'uuid' },
];

interface Props {
  nodes: NodeSummary[];
  caption: string;
  /** The current order (`-ctime`) and how to change it; without it the headers are plain. */
  sort?: string;
  onSort?: (sort: string) => void;
  userNames?: Map<number, string>;
}

export function NodeTable({ nodes, caption, sort, onSort, userNames }: Props) {
  const { api } = useExplorer();
  const formulas = useFormulas(api, nodes);
  const computedFor = useBandsFormulas(api, nodes);
  const column = sort?.replace(/^-/, '');
  const descending = sort?.startsWith('-') ?? false;
  return (
    <div class="table-wrap" tabIndex={0}>
      <table class="nodes">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {NODE_COLUMNS.map((c) => {
              const active = c.sort !== undefined && c.sort === column;
              return (
                <th
                  key={c.key}
                  scope="col"
                  aria-sort={active ? (descending ? 'descending' : 'ascending') : undefined}
                >
                  {onSort && c.sort ? (
                    <button
                      type="button"
                      class="sort"
                      onClick={() => onSort(active && !descending ? `-${c.sort}` : c.sort!)}
                    >
                      {c.title}
                      <span aria-hidden="true">{active ? (descending ? ' ▼' : ' ▲') : ''}</span>
                    </button>
                  ) : (
                    c.title
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {nodes.map((node) => (
            <tr key={node.uuid}>
              <td class="num">{node.id}</td>
              <td>
                <NodeName
                  label={node.label}
                  formula={formulas.get(node.id)}
                  computedFor={computedFor.get(node.id)}
                  uuid={node.uuid}
                />
              </td>
              <td title={node.full_type ?? node.node_type}>{kindName(node)}</td>
              <td>
                <DateTime value={node.ctime} />
              </td>
              <td>
                <DateTime value={node.mtime} />
              </td>
              <td>{userNames?.get(node.user_id) ?? node.user_id}</td>
              <td class="mono">
                <Link path={`/nodes/${node.uuid}`} title={node.uuid}>
                  {node.uuid.slice(0, 8)}
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A node's name in a list: its label, and a structure's or CIF's formula beside it (in its place when it has no
 * label).
 */
export function NodeName({
  label,
  formula,
  computedFor,
  uuid,
}: {
  label: string;
  formula?: string;
  /** A band structure's: the formula of the structure it was computed for. */
  computedFor?: string;
  uuid: string;
}) {
  if (label === '' && formula !== undefined)
    return (
      <Link path={`/nodes/${uuid}`}>
        <Formula formula={formula} />
      </Link>
    );
  // An unlabelled band structure is named by what it was computed for, not "(no label)".
  if (label === '' && computedFor !== undefined)
    return (
      <Link path={`/nodes/${uuid}`} title="no label">
        <span data-field="computed-for">
          for <Formula formula={computedFor} />
        </span>
      </Link>
    );
  return (
    <>
      <Link path={`/nodes/${uuid}`}>{label === '' ? <em>(no label)</em> : label}</Link>
      {formula !== undefined && (
        <span class="muted">
          {' '}
          · <Formula formula={formula} />
        </span>
      )}
      {computedFor !== undefined && (
        <span class="muted" data-field="computed-for">
          {' '}
          · for <Formula formula={computedFor} />
        </span>
      )}
    </>
  );
}
