/** A node's incoming or outgoing links, one page at a time: link label and type, the linked node. */
import { useState } from 'preact/hooks';
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { kindName } from '../format.js';
import type { LinkedNode } from '../types.js';
import { Await } from '../components/Await.js';
import { Link } from '../components/Link.js';
import { ListTable } from '../components/ListTable.js';
import { Pager } from '../components/Pager.js';
import { NodeName } from '../components/NodeTable.js';
import { useFormulas } from '../components/formulas.js';

const PER_PAGE = 20;

export function LinkTable({ uuid, direction }: { uuid: string; direction: 'incoming' | 'outgoing' }) {
  const { api } = useExplorer();
  const [page, setPage] = useState(1);

  const loaded = useLoad(
    (signal) =>
      api.get<Record<string, LinkedNode[]>>(
        `/nodes/${uuid}/links/${direction}/page/${page}/`,
        `perpage=${PER_PAGE}`,
        {
          signal,
        },
      ),
    [api, uuid, direction, page],
  );
  const formulas = useFormulas(api, loaded.state === 'ok' ? (loaded.data.data[direction] ?? []) : []);
  return (
    <Await loaded={loaded} what={`the ${direction} links`}>
      {(answer) => {
        const links = answer.data[direction] ?? [];
        if (links.length === 0 && page === 1) return <p class="muted">No {direction} links.</p>;
        return (
          <>
            <ListTable
              caption={`${direction} links`}
              class="links"
              columns={['Link label', 'Link type', direction === 'incoming' ? 'From' : 'To', 'Type', 'pk']}
            >
              {links.map((link) => (
                <tr key={`${link.uuid}/${link.link_label}/${link.link_type}`}>
                  <td>
                    <code>{link.link_label}</code>
                  </td>
                  <td>{link.link_type}</td>
                  <td>
                    {link.label === '' && !formulas.has(link.id) ? (
                      <Link path={`/nodes/${link.uuid}`}>
                        <em>{link.uuid.slice(0, 8)}</em>
                      </Link>
                    ) : (
                      <NodeName label={link.label} formula={formulas.get(link.id)} uuid={link.uuid} />
                    )}
                  </td>
                  <td title={link.node_type}>{kindName(link)}</td>
                  <td class="num">{link.id}</td>
                </tr>
              ))}
            </ListTable>
            {(answer.totalCount ?? 0) > PER_PAGE && (
              <Pager
                page={page}
                perpage={PER_PAGE}
                total={answer.totalCount}
                onPage={setPage}
                label={`${direction} link pages`}
              />
            )}
          </>
        );
      }}
    </Await>
  );
}
