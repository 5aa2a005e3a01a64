/**
 * A process's results at a glance: the plain values (numbers, short texts, yes/no) of the dictionaries it
 * created or returned (`output_parameters` and friends), with a link to each. One request, a page of five.
 */
import { Fragment } from 'preact';
import type { Api } from '../../api.js';
import { Await } from '../../components/Await.js';
import { Link } from '../../components/Link.js';
import { useLoad } from '../../hooks.js';
import type { LinkedNode } from '../../types.js';
import { Section } from './common.js';

/** Values shown per output before "all of them" (the output's own page). */
const SHOWN = 16;

type Output = LinkedNode & { attributes?: Record<string, unknown> };

function plainValues(attributes: Record<string, unknown> | undefined): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (typeof value === 'number')
      out.push([key, Number.isInteger(value) ? String(value) : String(+value.toPrecision(8))]);
    else if (typeof value === 'boolean') out.push([key, value ? 'yes' : 'no']);
    else if (typeof value === 'string' && value.length <= 80) out.push([key, value]);
  }
  return out;
}

export function KeyOutputs({ api, uuid }: { api: Api; uuid: string }) {
  const outputs = useLoad(
    async (signal) =>
      (
        await api.get<{ outgoing: Output[] }>(
          `/nodes/${uuid}/links/outgoing/page/1/`,
          `perpage=5&full_type=${encodeURIComponent('"data.core.dict.Dict.|"')}&attributes=true`,
          { signal },
        )
      ).data.outgoing.filter((o) => o.link_type === 'create' || o.link_type === 'return'),
    [api, uuid],
  );
  if (outputs.state === 'ok' && outputs.data.length === 0) return null;
  return (
    <Section title="Results" id="bt-results">
      <Await loaded={outputs} what="the results">
        {(list) => (
          <>
            {list.map((output) => {
              const values = plainValues(output.attributes);
              return (
                <div key={`${output.uuid}/${output.link_label}`} data-testid="key-output">
                  <p>
                    <Link path={`/nodes/${output.uuid}`}>
                      <code>{output.link_label}</code>
                    </Link>{' '}
                    <span class="bt-muted">
                      ({values.length} plain value{values.length === 1 ? '' : 's'})
                    </span>
                  </p>
                  {values.length > 0 && (
                    <dl class="bt-facts">
                      {values.slice(0, SHOWN).map(([key, value]) => (
                        <Fragment key={key}>
                          <dt>{key}</dt>
                          <dd data-key={key}>{value}</dd>
                        </Fragment>
                      ))}
                    </dl>
                  )}
                  {values.length > SHOWN && (
                    <p>
                      <Link path={`/nodes/${output.uuid}`}>All {values.length} values</Link>
                    </p>
                  )}
                </div>
              );
            })}
          </>
        )}
      </Await>
    </Section>
  );
}
