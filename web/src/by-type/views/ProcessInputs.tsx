/**
 * A process's inputs at the top of its page: the code with its computer, the structure with its formula, the
 * parameters unfolded, the k-points, the pseudopotentials by element, then the rest. One request for the links
 * (with the few attributes a summary needs), one per parameter dictionary, one for the code's computer.
 */
import { Fragment } from 'preact';
import type { Api } from '../../api.js';
import { Await } from '../../components/Await.js';
import { Formula } from '../../components/Formula.js';
import { Link } from '../../components/Link.js';
import { typeName } from '../../format.js';
import { useLoad } from '../../hooks.js';
import { computerOfNode } from '../../process-code.js';
import { INPUT_ATTRIBUTES, processInputs, unfold, type InputLink, type InputRow } from '../logic/inputs.js';
import { Section } from './common.js';
import { fetchAttributes } from './contents.js';

/** Inputs asked for at once; a process with more says so and links its incoming links. */
const PER_PAGE = 100;
/** Parameter dictionaries unfolded (the others link to their pages). */
const UNFOLDED = 4;

interface Loaded {
  rows: InputRow[];
  pseudos: ReturnType<typeof processInputs>['pseudos'];
  total?: number;
  dicts: Map<string, Record<string, unknown>>;
  computer?: { uuid: string; label: string };
}

async function load(api: Api, uuid: string, signal: AbortSignal): Promise<Loaded> {
  const answer = await api.get<{ incoming: InputLink[] }>(
    `/nodes/${uuid}/links/incoming/page/1/`,
    `perpage=${PER_PAGE}&orderby=id&attributes=true&attributes_filter=${INPUT_ATTRIBUTES.join(',')}`,
    { signal },
  );
  const { rows, pseudos } = processInputs(answer.data.incoming);
  const dictRows = rows.filter((r) => r.kind === 'parameters').slice(0, UNFOLDED);
  const code = rows.find((r) => r.kind === 'code');
  const [dicts, computer] = await Promise.all([
    Promise.all(
      dictRows.map(async (r) => [r.link.uuid, await fetchAttributes(api, r.link.uuid, signal)] as const),
    ),
    code ? computerOfNode(api, code.link.id, signal) : Promise.resolve(undefined),
  ]);
  return { rows, pseudos, total: answer.totalCount, dicts: new Map(dicts), computer };
}

export function ProcessInputs({ api, uuid }: { api: Api; uuid: string }) {
  const inputs = useLoad((signal) => load(api, uuid, signal), [api, uuid]);
  return (
    <Section title="Inputs" id="bt-inputs">
      <Await loaded={inputs} what="the inputs">
        {(found) => <InputsTable {...found} />}
      </Await>
    </Section>
  );
}

const NodeLink = ({ link }: { link: InputLink }) => (
  <Link path={`/nodes/${link.uuid}`}>
    {link.label || link.node_type.split('.').slice(-2, -1)[0]} <span class="bt-muted">{link.id}</span>
  </Link>
);

function InputsTable({ rows, pseudos, total, dicts, computer }: Loaded) {
  if (rows.length === 0 && pseudos.length === 0) return <p class="bt-muted">This process has no inputs.</p>;
  return (
    <>
      <div class="bt-scroll-x" tabIndex={0}>
        <table class="bt-table bt-inputs" data-testid="inputs">
          <thead>
            <tr>
              <th scope="col">Input</th>
              <th scope="col">Node</th>
              <th scope="col">What it holds</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.link.uuid}/${row.label}`} data-input={row.label} data-kind={row.kind}>
                <th scope="row">
                  <code>{row.label}</code>
                </th>
                <td>
                  <NodeLink link={row.link} />
                </td>
                <td>
                  <Details row={row} dict={dicts.get(row.link.uuid)} computer={computer} />
                </td>
              </tr>
            ))}
            {pseudos.length > 0 && (
              <tr data-kind="pseudos">
                <th scope="row">
                  <code>pseudos</code>
                </th>
                <td colSpan={2}>
                  <dl class="bt-facts" data-testid="pseudos">
                    {pseudos.map((p) => (
                      <Fragment key={p.link.uuid + p.element}>
                        <dt>{p.element}</dt>
                        <dd data-element={p.element}>
                          <Link path={`/nodes/${p.link.uuid}`}>{p.filename ?? `UPF ${p.link.id}`}</Link>
                        </dd>
                      </Fragment>
                    ))}
                  </dl>
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {total !== undefined && total > PER_PAGE && (
        <p class="bt-muted">
          The first {PER_PAGE} of {total} incoming links; the node's incoming links list has them all.
        </p>
      )}
    </>
  );
}

function Details({
  row,
  dict,
  computer,
}: {
  row: InputRow;
  dict?: Record<string, unknown>;
  computer?: { uuid: string; label: string };
}) {
  if (row.kind === 'code')
    return (
      <span data-testid="input-code">
        {computer ? (
          <>
            on <Link path={`/computers/${computer.uuid}`}>{computer.label}</Link>
          </>
        ) : (
          'no computer (a portable code)'
        )}
        {row.summary && <span class="bt-muted"> · {row.summary}</span>}
      </span>
    );
  if (row.formula) return <Formula formula={row.formula} />;
  if (row.kind === 'parameters') {
    if (dict === undefined) return <span class="bt-muted">a dictionary (open it for its values)</span>;
    const { rows, total } = unfold(dict);
    if (total === 0) return <span class="bt-muted">empty</span>;
    return (
      <>
        <dl class="bt-facts bt-unfolded" data-testid="parameters">
          {rows.map(([key, value]) => (
            <Fragment key={key}>
              <dt>{key}</dt>
              <dd data-key={key}>{value}</dd>
            </Fragment>
          ))}
        </dl>
        {total > rows.length && <Link path={`/nodes/${row.link.uuid}`}>All {total} values</Link>}
      </>
    );
  }
  // Nothing to summarise: the node's kind, as a person names it (not its raw type string).
  return row.summary ? (
    <span>{row.summary}</span>
  ) : (
    <span class="bt-muted">{typeName(row.link.node_type)}</span>
  );
}
