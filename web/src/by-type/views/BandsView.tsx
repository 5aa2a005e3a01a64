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
import { fermiOf, fermiQuery, type Fermi } from '../logic/fermi.js';
import { useExplorer } from '../../context.js';

export default function BandsView({ node, api }: TypeViewProps) {
  const loaded = useLoad(
    async (signal) => {
      const [json, attributes, fermi] = await Promise.all([
        downloadJson<unknown>(api, node.uuid, signal),
        fetchAttributes(api, node.uuid, signal),
        // The Fermi energy is a help, not the plot: without an answer the plot is drawn without it.
        api
          .query<{ d?: Record<string, unknown>[] }>(fermiQuery(node.id), { signal })
          .then((answer) => fermiOf(answer.data))
          .catch(() => undefined),
      ]);
      if (!isBandsJson(json)) throw new Error('the json download of these bands has no "paths" to plot');
      const units = attributes.units;
      return { plot: bandsPlot(json), units: typeof units === 'string' ? units : '', fermi };
    },
    [node.uuid, api],
  );
  return (
    <div class="bt-view" data-view="bands">
      <Await loaded={loaded} what="the band structure">
        {({ plot, units, fermi }) => (
          <Bands plot={plot} units={units} fermi={fermi} label={node.label || 'bands'} />
        )}
      </Await>
    </div>
  );
}

/** `-3,3` from the address: an energy window, low below high; anything else is none. */
function windowOf(text: string | undefined): [number, number] | undefined {
  const [low, high] = (text ?? '').split(',').map(Number);
  return low !== undefined &&
    high !== undefined &&
    Number.isFinite(low) &&
    Number.isFinite(high) &&
    low < high
    ? [low, high]
    : undefined;
}

function Bands({
  plot,
  units,
  fermi,
  label,
}: {
  plot: BandsPlot;
  units: string;
  fermi?: Fermi;
  label: string;
}) {
  const { navigate, params } = useExplorer();
  // Energies relative to a reference the reader gives (a Fermi energy), within a window they choose; both in the
  // address (`?ref=5.2&window=-3,3`), so that a reload or a shared link shows the same plot.
  const keptRef = Number(params.get('ref') ?? 0);
  const reference = Number.isFinite(keptRef) ? keptRef : 0;
  const window_ = windowOf(params.get('window') ?? undefined);
  const [typed, setTyped] = useState({
    reference: String(reference),
    low: window_ ? String(window_[0]) : '',
    high: window_ ? String(window_[1]) : '',
  });
  if (plot.lines.length === 0) return <p>These bands hold no points to plot.</p>;
  const twoTypes = plot.twoTypes;
  const shift = (p: [number, number]): [number, number] => [p[0], p[1] - reference];
  const y: [number, number] = window_ ?? [plot.y[0] - reference, plot.y[1] - reference];
  const apply = (event: Event) => {
    event.preventDefault();
    const ref = Number(typed.reference);
    const [low, high] = [Number(typed.low), Number(typed.high)];
    // One change of the address for both (two would each start from the same old one).
    const url = new URL(window.location.href);
    const set = (name: string, value: string | undefined) =>
      value === undefined ? url.searchParams.delete(name) : url.searchParams.set(name, value);
    set('ref', Number.isFinite(ref) && ref !== 0 ? String(ref) : undefined);
    set('window', typed.low !== '' && typed.high !== '' && low < high ? `${low},${high}` : undefined);
    set('zoom', undefined);
    navigate(`${url.pathname}${url.search}${url.hash}`, { replace: true });
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
      {fermi !== undefined && (
        <p data-testid="fermi-energy">
          Fermi energy {+fermi.energy.toPrecision(8)}
          {fermi.units ? ` ${fermi.units}` : ''} (dashed line), from the creating calculation's output{' '}
          <button
            type="button"
            class="bt-button"
            onClick={() => {
              setTyped({ ...typed, reference: String(fermi.energy) });
              const url = new URL(window.location.href);
              url.searchParams.set('ref', String(fermi.energy));
              url.searchParams.delete('zoom');
              navigate(`${url.pathname}${url.search}${url.hash}`, { replace: true });
            }}
          >
            Use as reference
          </button>
        </p>
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
            const url = new URL(window.location.href);
            for (const name of ['ref', 'window', 'zoom']) url.searchParams.delete(name);
            navigate(`${url.pathname}${url.search}${url.hash}`, { replace: true });
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
        urlKey="zoom"
        markers={fermi === undefined ? undefined : [{ y: fermi.energy - reference, label: 'E_F' }]}
      />
    </Section>
  );
}
