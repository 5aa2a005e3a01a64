/** UpfData: the pseudopotential's element and the header of its file. */
import { Await } from '../../components/Await.js';
import { useLoad } from '../../hooks.js';
import type { TypeViewProps } from '../index.js';
import { Section } from './common.js';
import { downloadJson } from './download.js';
import { fetchAttributes } from './contents.js';

export default function UpfView({ node, api }: TypeViewProps) {
  const loaded = useLoad(
    async (signal) => {
      const [attributes, json] = await Promise.all([
        fetchAttributes(api, node.uuid, signal),
        downloadJson<{ pseudo_potential?: { header?: Record<string, unknown> } }>(api, node.uuid, signal),
      ]);
      return { attributes, header: json.pseudo_potential?.header };
    },
    [node.uuid, api],
  );
  return (
    <div class="bt-view" data-view="upf">
      <Await loaded={loaded} what="the pseudopotential">
        {({ attributes, header }) => (
          <>
            <Section title="Pseudopotential" id="bt-upf">
              <p class="bt-big" data-testid="element">
                {String(attributes.element ?? header?.element ?? '?')}
              </p>
              <dl class="bt-facts">
                <dt>File</dt>
                <dd>{String(attributes.filename ?? '—')}</dd>
                <dt>MD5</dt>
                <dd>
                  <code>{String(attributes.md5 ?? '—')}</code>
                </dd>
              </dl>
              <p>
                <a href={api.url(`/nodes/${node.uuid}/download/`, 'download_format=upf')} download>
                  Download the UPF file
                </a>
              </p>
            </Section>
            <Section title="Header" id="bt-upf-header">
              {header ? (
                <div class="bt-scroll-x" tabIndex={0}>
                  <table class="bt-table" data-testid="upf-header">
                    <tbody>
                      {Object.entries(header).map(([k, v]) => (
                        <tr key={k}>
                          <th scope="row">{k}</th>
                          <td>{typeof v === 'string' ? v : JSON.stringify(v)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              ) : (
                <p>The file has no header the server could read.</p>
              )}
            </Section>
          </>
        )}
      </Await>
    </div>
  );
}
