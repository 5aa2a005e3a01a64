/** UpfData: the pseudopotential's element and the header of its file. */
import { Await } from '../../components/Await.js';
import { useLoad } from '../../hooks.js';
import type { TypeViewProps } from '../index.js';
import { Section } from './common.js';
import { downloadJson } from './download.js';
import { fetchAttributes } from './contents.js';
import { useState } from 'preact/hooks';
import { radialSets, type RadialSet, type UpfJson } from '../logic/upf.js';
import { LinePlot, SERIES } from './LinePlot.js';

export default function UpfView({ node, api }: TypeViewProps) {
  const loaded = useLoad(
    async (signal) => {
      const [attributes, json] = await Promise.all([
        fetchAttributes(api, node.uuid, signal),
        downloadJson<{ pseudo_potential?: UpfJson }>(api, node.uuid, signal),
      ]);
      return {
        attributes,
        header: json.pseudo_potential?.header,
        sets: radialSets(json.pseudo_potential ?? {}),
      };
    },
    [node.uuid, api],
  );
  return (
    <div class="bt-view" data-view="upf">
      <Await loaded={loaded} what="the pseudopotential">
        {({ attributes, header, sets }) => (
          <>
            {sets.length > 0 && <Radial sets={sets} element={String(attributes.element ?? '')} />}
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

/** The radial functions, one set at a time (projectors first), each line in its colour with its name. */
function Radial({ sets, element }: { sets: RadialSet[]; element: string }) {
  const [key, setKey] = useState(sets[0]!.key);
  const set = sets.find((s) => s.key === key) ?? sets[0]!;
  const all = set.lines.flatMap((l) => l.points);
  const x: [number, number] = [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))];
  const y: [number, number] = [Math.min(...all.map((p) => p[1])), Math.max(...all.map((p) => p[1]))];
  const lines = set.lines.map((l, i) => ({ ...l, color: SERIES[i % SERIES.length]! }));
  return (
    <Section title="Radial functions" id="bt-upf-radial">
      <div class="bt-legend" role="group" aria-label="Radial functions shown">
        {sets.map((s) => (
          <button
            key={s.key}
            type="button"
            class="bt-button"
            aria-pressed={s.key === set.key}
            onClick={() => setKey(s.key)}
          >
            {s.title}
          </button>
        ))}
      </div>
      <div class="bt-legend" data-testid="radial-legend">
        {lines.map((l) => (
          <span key={l.name}>
            <span class="bt-swatch" style={{ background: l.color }} />
            {l.name}
          </span>
        ))}
      </div>
      <LinePlot
        lines={lines}
        x={x}
        y={y}
        xLabel="r (bohr)"
        yLabel={set.yLabel}
        title={`${set.title} of the ${element} pseudopotential: ${lines.length} function${lines.length === 1 ? '' : 's'}`}
        testId="radial-plot"
      />
    </Section>
  );
}
