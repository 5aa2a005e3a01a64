/** BandsData: the band structure along its k-point path, the numbers of the `json` download, labels included. */
import { Await } from '../../components/Await.js';
import { useLoad } from '../../hooks.js';
import type { TypeViewProps } from '../index.js';
import { bandsPlot, displayLabel, isBandsJson, type BandsPlot } from '../logic/bands.js';
import { Section } from './common.js';
import { downloadJson } from './download.js';
import { LinePlot, SERIES } from './LinePlot.js';
import { fetchAttributes } from './contents.js';

export default function BandsView({ node, api }: TypeViewProps) {
  const loaded = useLoad(
    async (signal) => {
      const [json, attributes] = await Promise.all([
        downloadJson<unknown>(api, node.uuid, signal),
        fetchAttributes(api, node.uuid, signal),
      ]);
      if (!isBandsJson(json)) throw new Error('the json download of these bands has no "paths" to plot');
      const units = attributes.units;
      return { plot: bandsPlot(json), units: typeof units === 'string' ? units : '' };
    },
    [node.uuid, api],
  );
  return (
    <div class="bt-view" data-view="bands">
      <Await loaded={loaded} what="the band structure">
        {({ plot, units }) => <Bands plot={plot} units={units} label={node.label || 'bands'} />}
      </Await>
    </div>
  );
}

function Bands({ plot, units, label }: { plot: BandsPlot; units: string; label: string }) {
  if (plot.lines.length === 0) return <p>These bands hold no points to plot.</p>;
  const twoTypes = plot.twoTypes;
  const lines = plot.lines.map((l) => ({
    points: l.points,
    color: l.second ? (SERIES[1] as string) : (SERIES[0] as string),
    name: `band ${l.band + 1}`,
  }));
  const ticks = plot.ticks.map((t) => ({ x: t.x, label: displayLabel(t.label), raw: t.label }));
  return (
    <Section title="Band structure" id="bt-bands">
      <p class="bt-muted">
        {plot.bandCount} bands{twoTypes ? ' in each of two band types' : ''} along{' '}
        {ticks.map((t) => t.label).join(' – ')}
      </p>
      {twoTypes && (
        <div class="bt-legend">
          <span>
            <span class="bt-swatch" style={{ background: SERIES[0] }} />
            first band type (spin up)
          </span>
          <span>
            <span class="bt-swatch" style={{ background: SERIES[1] }} />
            second band type (spin down)
          </span>
        </div>
      )}
      <LinePlot
        lines={lines}
        x={plot.x}
        y={plot.y}
        namedTicks={ticks}
        xLabel="k-point path"
        yLabel={units ? `Energy (${units})` : 'Energy'}
        title={`Band structure of ${label}: ${plot.bandCount} bands`}
        testId="bands-plot"
      />
    </Section>
  );
}
