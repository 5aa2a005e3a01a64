/**
 * The structures a chemical search finds (`SiO2`, `Si O`), from the source's OPTIMADE endpoint, above the nodes
 * whose label contains the same text. A source without OPTIMADE says so and the label results stay.
 */
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatCount, kindName } from '../format.js';
import { chemicalQuery, findStructures, type ChemicalQuery } from '../optimade.js';
import { servesOptimade } from '../optimade-base.js';
import { searchesWords } from '../label-words.js';
import { Await } from './Await.js';
import { Formula } from './Formula.js';
import { Link } from './Link.js';
import { ListTable } from './ListTable.js';

const SHOWN = 50;

/** The node types of the structures found (OPTIMADE serves StructureData and CifData alike): one v4 request. */
function useKinds(pks: number[]): Map<number, string> {
  const { api } = useExplorer();
  const key = pks.join(',');
  const kinds = useLoad(
    async (signal) => {
      if (pks.length === 0) return new Map<number, string>();
      // `in` takes a list of two or more (a single value is the v4 language's plain equality).
      const filter = pks.length === 1 ? `id=${key}` : `id=in=${key}`;
      const answer = await api.get<{ nodes: { id: number; node_type: string }[] }>(
        '/nodes/',
        `${filter}&limit=${pks.length}`,
        { signal },
      );
      return new Map(answer.data.nodes.map((n) => [n.id, kindName(n)] as const));
    },
    [api, key],
  );
  return kinds.state === 'ok' ? kinds.data : new Map();
}

export function StructureMatches({ query }: { query: ChemicalQuery }) {
  const { api, root } = useExplorer();
  const found = useLoad(
    (signal) => findStructures(api, root, query, SHOWN, signal),
    [api, root, query.filter],
  );
  const kinds = useKinds(
    found.state === 'ok' ? found.data.structures.flatMap((s) => (s.pk === undefined ? [] : [s.pk])) : [],
  );
  return (
    <section class="structure-matches" aria-labelledby="structure-matches-title">
      <h2 id="structure-matches-title">Structures {query.words}</h2>
      <Await loaded={found} what="the structures (OPTIMADE)">
        {(answer) => (
          <>
            <p class="muted" data-figure="structure-total">
              {formatCount(answer.total ?? answer.structures.length)} structures
              {answer.total !== undefined && answer.total > answer.structures.length
                ? `, the ${answer.structures.length} smallest shown`
                : ''}{' '}
              ·{' '}
              <a href={answer.url} rel="nofollow">
                as OPTIMADE
              </a>
            </p>
            {answer.structures.length > 0 && (
              <ListTable
                caption={`Structures ${query.words}`}
                columns={['Formula', 'Label', 'Type', 'pk', 'Sites']}
              >
                {answer.structures.map((s) => (
                  <tr key={s.uuid} data-uuid={s.uuid}>
                    <td>
                      <Link path={`/nodes/${s.uuid}`}>
                        <Formula formula={s.formula} />
                      </Link>
                    </td>
                    <td>{s.label}</td>
                    <td data-field="type">{s.pk === undefined ? '' : (kinds.get(s.pk) ?? '')}</td>
                    <td>{s.pk ?? ''}</td>
                    <td>{s.nsites ?? ''}</td>
                  </tr>
                ))}
              </ListTable>
            )}
          </>
        )}
      </Await>
    </section>
  );
}

/** A search text read as chemistry (its own chunk): the structures it finds, then the heading of the label matches. */
export default function ChemicalSearch({ text }: { text: string }) {
  const { api } = useExplorer();
  const query = chemicalQuery(text);
  // Another server's API (`?api=`) has no OPTIMADE endpoint this explorer knows of.
  if (query === undefined || !servesOptimade(api)) return null;
  return (
    <>
      <StructureMatches query={query} />
      <h2>
        {searchesWords(text)
          ? `Nodes with the word “${text}” in their label`
          : `Nodes whose label contains “${text}”`}
      </h2>
    </>
  );
}
