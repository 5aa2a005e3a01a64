/**
 * The structures a chemical search finds (`SiO2`, `Si O`), from the source's OPTIMADE endpoint, above the nodes
 * whose label contains the same text. A source without OPTIMADE says so and the label results stay.
 */
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatCount } from '../format.js';
import { chemicalQuery, findStructures, type ChemicalQuery } from '../optimade.js';
import { servesOptimade } from '../optimade-base.js';
import { searchesWords } from '../label-words.js';
import { Await } from './Await.js';
import { Formula } from './Formula.js';
import { Link } from './Link.js';
import { ListTable } from './ListTable.js';

const SHOWN = 50;

export function StructureMatches({ query }: { query: ChemicalQuery }) {
  const { api, root } = useExplorer();
  const found = useLoad(
    (signal) => findStructures(api, root, query, SHOWN, signal),
    [api, root, query.filter],
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
              <ListTable caption={`Structures ${query.words}`} columns={['Formula', 'Label', 'pk', 'Sites']}>
                {answer.structures.map((s) => (
                  <tr key={s.uuid} data-uuid={s.uuid}>
                    <td>
                      <Link path={`/nodes/${s.uuid}`}>
                        <Formula formula={s.formula} />
                      </Link>
                    </td>
                    <td>{s.label}</td>
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
