/** ArrayData, XyData and TrajectoryData: the arrays' names and shapes, tables of the small ones, XyData's plot. */
import { useState } from 'preact/hooks';
import { Await } from '../../components/Await.js';
import { useLoad } from '../../hooks.js';
import type { TypeViewProps } from '../index.js';
import { arrayInfos, SMALL_ARRAY, tableRows, xySeries, type ArrayInfo } from '../logic/arrays.js';
import { Num, Section } from './common.js';
import { downloadJson } from './download.js';
import { LinePlot, SERIES } from './LinePlot.js';
import { fetchAttributes } from './contents.js';

/** Above this many numbers in all, the values are not fetched: the download link serves them. */
const FETCH_LIMIT = 50_000;

export interface Loaded {
  attributes: Record<string, unknown>;
  infos: ArrayInfo[];
  values?: Record<string, unknown>;
}

/** The attributes, the arrays' shapes and (when small enough) their values. */
export function useArrays({ node, api }: TypeViewProps) {
  return useLoad(
    async (signal): Promise<Loaded> => {
      const attributes = await fetchAttributes(api, node.uuid, signal);
      const infos = arrayInfos(attributes);
      const total = infos.reduce((n, a) => n + a.size, 0);
      const values =
        infos.length > 0 && total <= FETCH_LIMIT
          ? await downloadJson<Record<string, unknown>>(api, node.uuid, signal)
          : undefined;
      return { attributes, infos, values };
    },
    [node.uuid, api],
  );
}

export default function ArrayView(props: TypeViewProps) {
  const { node, api } = props;
  const loaded = useArrays(props);
  return (
    <div class="bt-view" data-view="arrays">
      <Await loaded={loaded} what="the arrays">
        {(data) => (
          <Arrays {...data} downloadUrl={api.url(`/nodes/${node.uuid}/download/`, 'download_format=json')} />
        )}
      </Await>
    </div>
  );
}

export function Arrays({ attributes, infos, values, downloadUrl }: Loaded & { downloadUrl: string }) {
  const xy = values ? xySeries(attributes, values) : undefined;
  const symbols = Array.isArray(attributes.symbols) ? attributes.symbols.map(String) : undefined;
  return (
    <>
      {symbols && (
        <Section title="Trajectory" id="bt-trajectory">
          <dl class="bt-facts">
            <dt>Atoms</dt>
            <dd>
              {symbols.length}: {symbols.join(' ')}
            </dd>
            <dt>Steps</dt>
            <dd>{infos.find((a) => a.name === 'positions')?.shape[0] ?? '—'}</dd>
          </dl>
        </Section>
      )}
      {xy && xy.ys.length > 0 && (
        <Section title="Plot" id="bt-xy">
          <div class="bt-legend">
            {xy.ys.map((y, i) => (
              <span key={y.name}>
                <span class="bt-swatch" style={{ background: SERIES[i % SERIES.length] }} />
                {y.name}
                {y.unit && ` (${y.unit})`}
              </span>
            ))}
          </div>
          <LinePlot
            lines={xy.ys.map((y, i) => ({
              name: y.name,
              color: SERIES[i % SERIES.length] as string,
              points: y.values
                .map((v, k) => [xy.x.values[k] ?? NaN, v] as [number, number])
                .filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b)),
            }))}
            x={extent(xy.x.values)}
            y={extent(xy.ys.flatMap((y) => y.values))}
            xLabel={xy.x.unit ? `${xy.x.name} (${xy.x.unit})` : xy.x.name}
            yLabel={[...new Set(xy.ys.map((y) => y.unit))].join(', ') || 'y'}
            title={`${xy.ys.map((y) => y.name).join(', ')} against ${xy.x.name}`}
            testId="xy-plot"
          />
        </Section>
      )}
      <Section title="Arrays" id="bt-arrays">
        {infos.length === 0 ? (
          <p>This node holds no arrays.</p>
        ) : (
          <div class="bt-scroll-x" tabIndex={0}>
            <table class="bt-table" data-testid="array-shapes">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Shape</th>
                  <th scope="col">Values</th>
                </tr>
              </thead>
              <tbody>
                {infos.map((a) => (
                  <tr key={a.name}>
                    <td>{a.name}</td>
                    <td>({a.shape.join(', ')})</td>
                    <td class="bt-num">{a.size}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p>
          <a href={downloadUrl} download>
            Download all arrays (JSON)
          </a>
        </p>
      </Section>
      {infos.map((a) => (
        <ArrayTable key={a.name} info={a} value={values?.[a.name]} />
      ))}
    </>
  );
}

function extent(values: number[]): [number, number] {
  const finite = values.filter(Number.isFinite);
  return finite.length ? [Math.min(...finite), Math.max(...finite)] : [0, 1];
}

function ArrayTable({ info, value }: { info: ArrayInfo; value: unknown }) {
  const [open, setOpen] = useState(info.size <= 24);
  if (value === undefined || info.size > SMALL_ARRAY) {
    return (
      <Section title={`${info.name} (${info.shape.join(' × ')})`} id={`bt-array-${info.name}`}>
        <p class="bt-muted">Too large to show here ({info.size} values); the download above has it.</p>
      </Section>
    );
  }
  const rows = tableRows(value);
  const width = Math.max(1, ...rows.map((r) => r.cells.length));
  return (
    <Section title={`${info.name} (${info.shape.join(' × ')})`} id={`bt-array-${info.name}`}>
      <button type="button" class="bt-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Hide values' : `Show ${info.size} values`}
      </button>
      {open && (
        <div class="bt-scroll" tabIndex={0}>
          <table class="bt-table" data-testid={`array-${info.name}`}>
            <thead>
              <tr>
                <th scope="col">index</th>
                {Array.from({ length: width }, (_, i) => (
                  <th scope="col" key={i}>
                    {width === 1 ? 'value' : i}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.index}>
                  <th scope="row">{r.index}</th>
                  {r.cells.map((c, i) => (
                    <Num key={i} value={c} />
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
