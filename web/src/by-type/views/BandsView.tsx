/** BandsData: the band structure along its k-point path, the numbers of the `json` download, labels included. */
import { useState } from 'preact/hooks';
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
  // Energies relative to a reference the reader gives (a Fermi energy), within a window they choose.
  const [reference, setReference] = useState(0);
  const [window_, setWindow] = useState<[number, number] | undefined>(undefined);
  const [typed, setTyped] = useState({ reference: '0', low: '', high: '' });
  if (plot.lines.length === 0) return <p>These bands hold no points to plot.</p>;
  const twoTypes = plot.twoTypes;
  const shift = (p: [number, number]): [number, number] => [p[0], p[1] - reference];
  const y: [number, number] = window_ ?? [plot.y[0] - reference, plot.y[1] - reference];
  const apply = (event: Event) => {
    event.preventDefault();
    const ref = Number(typed.reference);
    setReference(Number.isFinite(ref) ? ref : 0);
    const [low, high] = [Number(typed.low), Number(typed.high)];
    setWindow(typed.low !== '' && typed.high !== '' && low < high ? [low, high] : undefined);
  };
  const lines = plot.lines.map((l) => ({
    points: reference === 0 ? l.points : l.points.map(shift),
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
      <form class="bt-plot-controls" onSubmit={apply} aria-label="Energy axis">
        <label>
          Reference energy{units ? ` (${units})` : ''}{' '}
          <input
            type="number"
            step="any"
            size={8}
            value={typed.reference}
            onInput={(e) => setTyped({ ...typed, reference: (e.currentTarget as HTMLInputElement).value })}
          />
        </label>
        <label>
          Window from{' '}
          <input
            type="number"
            step="any"
            size={6}
            value={typed.low}
            onInput={(e) => setTyped({ ...typed, low: (e.currentTarget as HTMLInputElement).value })}
          />
        </label>
        <label>
          to{' '}
          <input
            type="number"
            step="any"
            size={6}
            value={typed.high}
            onInput={(e) => setTyped({ ...typed, high: (e.currentTarget as HTMLInputElement).value })}
          />
        </label>
        <button type="submit" class="bt-button">
          Apply
        </button>
        <button
          type="button"
          class="bt-button"
          onClick={() => {
            setReference(0);
            setWindow(undefined);
            setTyped({ reference: '0', low: '', high: '' });
          }}
        >
          Reset
        </button>
      </form>
      <LinePlot
        lines={lines}
        x={plot.x}
        y={y}
        exactY={window_ !== undefined}
        namedTicks={ticks}
        xLabel="k-point path"
        yLabel={`${reference === 0 ? 'Energy' : `E − ${reference}`}${units ? ` (${units})` : ''}`}
        title={`Band structure of ${label}: ${plot.bandCount} bands`}
        testId="bands-plot"
      />
    </Section>
  );
}
